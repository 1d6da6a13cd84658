import FoundationEssentials
import Glibc
import SpeakKit

/// What the command line asked for, parsed by hand (no outside packages here).
package struct Options {
    package var voiceName: String?
    package var rate: Int?
    package var pitch: Int?
    package var volume = 100
    package var device = "default"
    package var output: String?
    package var fileFormat: String?
    /// say's `--data-format` (`LEI16@22050`, `aac`): see ``OutputFormat``.
    package var dataFormat: String?
    /// say's `--bit-rate`, in bits per second (AAC, Opus, Vorbis, MP3).
    package var bitRateBPS: Int?
    /// say's `--quality` (its converter's, 0 to 127): taken, and changes nothing here.
    package var quality: Int?
    /// say's `[[slnc 500]]` and friends are obeyed unless `--no-embedded`.
    package var embedded = true
    package var bitrate = 32
    package var sampleRate = 22050
    package var inputFile: String?
    package var ssml = false
    package var phonemes: PhonemeNotation?
    package var playFile: String?
    package var voicesDirectory: String?
    package var waitForTurn = true
    package var progress = false
    package var cache = false
    package var remote: String?
    package var token: String?
    package var quiet = false
    package var help = false
    package var version = false
    package var words: [String] = []

    package enum PhonemeNotation { case mnemonics, ipa }

    /// Every flag `speak` takes, in the order `speak --help` lists them.
    package static var commandFlags: CommandFlags<Options> {
        CommandFlags(command: "speak", summary: helpSummary, flags: flags, epilogue: helpEpilogue)
    }

    private typealias Flag = CommandFlags<Options>.Flag

    // Computed: key paths and closures over them are not Sendable, so no static lets.
    private static var flags: [Flag] {
        [
            .value(
                "-v", "--voice", value: "NAME",
                help: """
                    voice to speak with; -v '?' lists voices; a macOS voice name (Alex,
                    Samantha, Daniel…) picks the closest voice here
                    """
            ) { $0.voiceName = $1 },
            .number(
                "-r", "--rate", value: "WPM", in: SpeechOptions.rateRange, what: "rate (words per minute)",
                help: "words per minute, 80 to 450 (default: the voice's)"
            ) { $0.rate = $1 },
            .number(
                "-p", "--pitch", value: "N", in: SpeechOptions.pitchRange, what: "pitch",
                help: "pitch, 0 to 100 (default: the voice's)"
            ) { $0.pitch = $1 },
            .number("--volume", value: "N", in: 0...200, what: "volume", help: "volume, 0 to 200; 100 is normal") {
                $0.volume = $1
            },
            .value(
                "-a", "--device", "--audio-device", value: "NAME",
                help: "ALSA playback device (default: default); -a '?' lists devices"
            ) { $0.device = $1 },
            .value(
                "-o", "--output", "--output-file", value: "FILE",
                help: """
                    write FILE instead of playing: .mp3, .wav, .m4a, .aiff, .caf, .ogg, .opus, .flac
                    (all but .mp3 and .wav through speak-full's FFmpeg); - is standard output (WAV)
                    """
            ) { $0.output = $1 },
            .value(
                "--file-format", value: "F",
                help: """
                    the file type, when FILE's extension does not say: say's names (WAVE, m4af,
                    AIFF, caff…) or an extension; --file-format=? lists them
                    """
            ) { $0.fileFormat = $1 },
            .value(
                "--data-format", value: "D",
                help: """
                    what the file holds, as say names it: LEI16, BEI24, LEF32… with @RATE
                    (LEI16@16000), aac, alac, opus, vorbis, ulaw; --data-format=? lists them
                    """
            ) { $0.dataFormat = $1 },
            .number(
                "--bit-rate", value: "BPS", in: 8000...320_000, what: "bit rate (bits per second)",
                help: "bits per second for AAC, Opus, Vorbis or MP3 (say's flag)"
            ) { $0.bitRateBPS = $1 },
            .number(
                "--quality", value: "N", in: 0...127, what: "quality",
                help: "say's converter quality, 0 to 127: taken, and changes nothing here"
            ) { $0.quality = $1 },
            .value("--channels", value: "1", help: "say's flag: speak writes mono only") { _, channels in
                guard channels == "1" else {
                    throw UsageError("speak writes mono audio: --channels takes 1, not '\(channels)'")
                }
            },
            .number(
                "--bitrate", value: "KBPS", in: MP3Settings.bitrates, what: "MP3 bit rate (kbps)",
                help: "MP3 bit rate, 32 to 64 (default 32)"
            ) { $0.bitrate = $1 },
            .value("--sample-rate", value: "HZ", help: "MP3 sample rate: 16000, 22050 or 24000 (default 22050)") {
                let rates = MP3Settings.sampleRates
                guard let rate = Int($1), rates.contains(rate) else {
                    let phrase = rates.dropLast().map(String.init).joined(separator: ", ") + " or \(rates.last ?? 0)"
                    throw UsageError("MP3 sample rate (Hz) must be \(phrase), not '\($1)'")
                }
                $0.sampleRate = rate
            },
            .value(
                "-f", "--input-file", value: "FILE", help: "read the text from FILE, or from standard input with -"
            ) { $0.inputFile = $1 },
            .switch("--ssml", help: "the text is SSML markup") { $0.ssml = true },
            .switch(
                "--no-embedded",
                help: """
                    read say's embedded commands ([[slnc 500]], [[rate 300]], [[volm 0.5]],
                    [[emph +]]) as text instead of obeying them
                    """
            ) { $0.embedded = false },
            .switch("-x", "--phonemes", help: "print espeak-ng's phoneme mnemonics instead of speaking") {
                $0.phonemes = .mnemonics
            },
            .switch("--ipa", help: "print the phonemes in IPA instead of speaking") { $0.phonemes = .ipa },
            .value("--play", value: "FILE", help: "play an MP3 or WAV file") { $0.playFile = $1 },
            .value("--voices-dir", value: "DIR", help: "also load voice files (*.json) from DIR; also $SPEAK_VOICES") {
                $0.voicesDirectory = $1
            },
            .switch("--no-wait", help: "fail with exit 75 if another speak is playing, instead of taking turns") {
                $0.waitForTurn = false
            },
            .switch(
                "--cache", help: "play a reply spoken before from the cache speak serve shares; store new ones"
            ) { $0.cache = true },
            .value("--remote", value: "URL", help: "speak on the machine of the speak serve at URL (POST /play)") {
                $0.remote = $1
            },
            .value("--token", value: "TOKEN", help: "bearer token for --remote (default: $SPEAK_TOKEN)") {
                $0.token = $1
            },
            .switch("--progress", help: "show a progress bar while writing a file") { $0.progress = true },
            .switch("-q", "--quiet", help: "no progress bar") { $0.quiet = true },
            .switch("--version", help: "speak's version") { $0.version = true },
        ]
    }

    package init(arguments: [String]) throws(UsageError) {
        do {
            try Self.commandFlags.scan(arguments, into: &self) { $0.words.append($1) }
        } catch is HelpRequested {
            help = true
            return
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(error)")
        }
        if phonemes != nil, output != nil {
            throw UsageError("-x and --ipa print phonemes and write no audio: leave out -o")
        }
    }
}

/// The command line itself is wrong: exit 64.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
