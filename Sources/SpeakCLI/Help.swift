package let speakVersion = "0.1.0"

package let helpText = """
    speak: say text aloud with espeak-ng, and return once it has been heard.

    usage: speak [-v voice] [-r wpm] [-p pitch] [-a device] [-o file] [-f file|-] [--progress] [--quiet] [text…]
           speak [-a device] FILE.mp3|FILE.wav        (or --play FILE)

    Other commands (each with --help): speak serve (the HTTP service), speak record,
    speak transcribe FILE…, speak ask "question?" (speak, record the answer, transcribe it).

    Text comes from the arguments, from -f FILE, or from standard input (-f - or a pipe).

    options:
      -v, --voice NAME       voice to speak with; -v '?' lists voices; a macOS voice name (Alex,
                             Samantha, Daniel…) picks the closest voice here
      -r, --rate WPM         words per minute, 80 to 450 (default: the voice's)
      -p, --pitch N          pitch, 0 to 100 (default: the voice's)
          --volume N         volume, 0 to 200; 100 is normal
      -a, --device NAME      ALSA playback device (default: default); -a '?' lists devices
      -o, --output FILE      write FILE instead of playing: .mp3, .wav, .m4a, .aiff, .caf, .ogg, .opus, .flac
                             (all but .mp3 and .wav through speak-full's FFmpeg); - is standard output (WAV)
          --file-format F    the file type, when FILE's extension does not say: say's names (WAVE, m4af,
                             AIFF, caff…) or an extension; --file-format=? lists them
          --data-format D    what the file holds, as say names it: LEI16, BEI24, LEF32… with @RATE
                             (LEI16@16000), aac, alac, opus, vorbis, ulaw; --data-format=? lists them
          --bit-rate BPS     bits per second for AAC, Opus, Vorbis or MP3 (say's flag)
          --quality N        say's converter quality, 0 to 127: taken, and changes nothing here
          --channels 1       say's flag: speak writes mono only
          --bitrate KBPS     MP3 bit rate, 32 to 64 (default 32)
          --sample-rate HZ   MP3 sample rate: 16000, 22050 or 24000 (default 22050)
      -f, --input-file FILE  read the text from FILE, or from standard input with -
          --ssml             the text is SSML markup
          --no-embedded      read say's embedded commands ([[slnc 500]], [[rate 300]], [[volm 0.5]],
                             [[emph +]]) as text instead of obeying them
      -x, --phonemes         print espeak-ng's phoneme mnemonics instead of speaking
          --ipa              print the phonemes in IPA instead of speaking
          --play FILE        play an MP3 or WAV file
          --voices-dir DIR   also load voice files (*.json) from DIR; also $SPEAK_VOICES
          --no-wait          fail with exit 75 if another speak is playing, instead of taking turns
          --cache            play a reply spoken before from the cache speak serve shares; store new ones
          --remote URL       speak on the machine of the speak serve at URL (POST /play)
          --token TOKEN      bearer token for --remote (default: $SPEAK_TOKEN)
          --progress         show a progress bar while writing a file
      -q, --quiet            no progress bar
      -h, --help             this help
          --version          speak's version

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
