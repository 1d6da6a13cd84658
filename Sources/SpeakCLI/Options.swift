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

    // Flags by every name they answer to. Computed: key paths are not Sendable, so no static lets.
    /// Flags that take a value.
    private static var valued: [String: WritableKeyPath<Options, String?>] {
        [
            "-v": \.voiceName, "--voice": \.voiceName,
            "-a": \.deviceValue, "--device": \.deviceValue, "--audio-device": \.deviceValue,
            "-o": \.output, "--output": \.output, "--output-file": \.output,
            "--file-format": \.fileFormat, "--data-format": \.dataFormat, "--channels": \.channels,
            "-f": \.inputFile, "--input-file": \.inputFile,
            "--play": \.playFile,
            "--voices-dir": \.voicesDirectory,
            "--remote": \.remote, "--token": \.token,
        ]
    }
    /// The values a numeric flag takes, and how its error message names them.
    private enum Allowed {
        case range(ClosedRange<Int>)
        case oneOf([Int])

        func contains(_ number: Int) -> Bool {
            switch self {
            case .range(let range): range.contains(number)
            case .oneOf(let values): values.contains(number)
            }
        }

        var phrase: String {
            switch self {
            case .range(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .oneOf(let values):
                values.dropLast().map(String.init).joined(separator: ", ") + " or \(values.last.map(String.init) ?? "")"
            }
        }
    }
    private static var numeric: [String: (WritableKeyPath<Options, Int?>, Allowed, String)] {
        [
            "-r": (\.rateValue, .range(80...450), "rate (words per minute)"),
            "--rate": (\.rateValue, .range(80...450), "rate (words per minute)"),
            "-p": (\.pitchValue, .range(0...100), "pitch"), "--pitch": (\.pitchValue, .range(0...100), "pitch"),
            "--volume": (\.volumeValue, .range(0...200), "volume"),
            "--bitrate": (\.bitrateValue, .range(MP3Settings.bitrates), "MP3 bit rate (kbps)"),
            "--sample-rate": (\.sampleRateValue, .oneOf(MP3Settings.sampleRates), "MP3 sample rate (Hz)"),
            "--bit-rate": (\.bitRateBPS, .range(8000...320_000), "bit rate (bits per second)"),
            "--quality": (\.quality, .range(0...127), "quality"),
        ]
    }
    private static var switches: [String: WritableKeyPath<Options, Bool>] {
        [
            "--ssml": \.ssml, "--progress": \.progress, "--cache": \.cache, "-q": \.quiet, "--quiet": \.quiet,
            "-h": \.help, "--help": \.help, "--version": \.version,
        ]
    }
    private static var allFlags: [String] {
        Array(valued.keys) + Array(numeric.keys) + Array(switches.keys) + [
            "-x", "--phonemes", "--ipa", "--no-wait", "--no-embedded",
        ]
    }

    package init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                words += remaining
                break
            }
            guard argument.count > 1, argument.hasPrefix("-") else {
                words.append(argument)
                continue
            }
            // --flag=value
            var flag = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
                return next
            }
            if let path = Self.valued[flag] {
                self[keyPath: path] = try value()
            } else if let (path, allowed, what) = Self.numeric[flag] {
                let text = try value()
                guard let number = Int(text), allowed.contains(number) else {
                    throw UsageError("\(what) must be \(allowed.phrase), not '\(text)'")
                }
                self[keyPath: path] = number
            } else if let path = Self.switches[flag], inlineValue == nil {
                self[keyPath: path] = true
            } else if inlineValue != nil, Self.allFlags.contains(flag) {
                throw UsageError("\(flag) takes no value")
            } else if flag == "-x" || flag == "--phonemes" {
                phonemes = .mnemonics
            } else if flag == "--ipa" {
                phonemes = .ipa
            } else if flag == "--no-wait" {
                waitForTurn = false
            } else if flag == "--no-embedded" {
                embedded = false
            } else {
                let hint =
                    closestMatches(to: flag, among: Self.allFlags, limit: 1).first.map { "; did you mean \($0)?" } ?? ""
                throw UsageError("unknown option \(flag)\(hint) (speak --help lists them)")
            }
        }
        if phonemes != nil, output != nil {
            throw UsageError("-x and --ipa print phonemes and write no audio: leave out -o")
        }
        if let channels, channels != "1" {
            throw UsageError("speak writes mono audio: --channels takes 1, not '\(channels)'")
        }
    }

    /// say's `--channels`: only 1 is taken.
    private var channels: String?

    // Optional views of the non-optional fields, so every flag fits one table above.
    private var deviceValue: String? {
        get { device }
        set { device = newValue ?? device }
    }
    private var rateValue: Int? {
        get { rate }
        set { rate = newValue }
    }
    private var pitchValue: Int? {
        get { pitch }
        set { pitch = newValue }
    }
    private var volumeValue: Int? {
        get { volume }
        set { volume = newValue ?? volume }
    }
    private var bitrateValue: Int? {
        get { bitrate }
        set { bitrate = newValue ?? bitrate }
    }
    private var sampleRateValue: Int? {
        get { sampleRate }
        set { sampleRate = newValue ?? sampleRate }
    }
}

/// The command line itself is wrong: exit 64.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
