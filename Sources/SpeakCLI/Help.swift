package let speakVersion = "0.1.0"

package let helpSummary = """
    speak: say text aloud with espeak-ng, and return once it has been heard.

    usage: speak [-v voice] [-r wpm] [-p pitch] [-a device] [-o file] [-f file|-] [--progress] [--quiet] [text…]
           speak [-a device] FILE.mp3|FILE.wav        (or --play FILE)

    Other commands (each with --help): speak serve (the HTTP service), speak record,
    speak transcribe FILE…, speak ask "question?" (speak, record the answer, transcribe it).

    Text comes from the arguments, from -f FILE, or from standard input (-f - or a pipe).
    """

package let helpEpilogue = """
    examples:
      speak "Build passed"
      make && speak "Build passed" || speak -v oliver "Build failed"
      speak -v nadia "Na gode! Mun karɓi saƙonku."
      speak -r 220 -o reply.mp3 -f notes.txt --progress
      speak -o reply.m4a "Done [[slnc 500]] and dusted."
      speak -a '?'
      speak reply.mp3
      speak --remote http://10.0.0.5:8080 "Deploy finished"
      speak serve --port 8080                 (speak serve --help)

    exit codes:
      0    spoken (or written) completely
      1    a library failed (espeak-ng, LAME, mpg123, ALSA)
      64   usage: unknown option, bad value, no text, unknown voice, a format speak does not write
      65   bad data: not an audio file, text over 512 KiB, text not UTF-8
      66   an input file cannot be read
      69   no playback device: pick one with -a, or write a file with -o
      73   the output file cannot be written
      75   device busy: another program (or, with --no-wait, another speak) is playing
      77   --remote: the server refused the token
      130  interrupted (Ctrl-C); the sound stops at once
    """

/// `speak --help`.
package var helpText: String { Options.commandFlags.helpText }
