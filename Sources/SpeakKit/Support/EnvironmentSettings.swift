import FoundationEssentials

/// One `SPEAK_*` environment variable: its name, what it does, its default and what it takes.
public struct EnvironmentVariable: Sendable, Equatable {
    public let name: String
    public let purpose: String
    public let standard: String
    public let accepted: String
}

/// Every `SPEAK_*` variable speak reads, parsed once per process (``current``) so that the modules
/// read these fields instead of the environment. Docs/configuration.md has the same table, and
/// `EnvironmentTableTests` checks both against the names the sources use.
public struct EnvironmentSettings: Sendable, Equatable {
    /// The table: one entry a variable.
    public static let variables: [EnvironmentVariable] = [
        .init(
            name: "SPEAK_VOICE", purpose: "the voice `speak` speaks with when no `-v` is given",
            standard: "the config file's `default`, else `default`", accepted: "a voice name; empty is unset"),
        .init(
            name: "SPEAK_VOICES",
            purpose: "more voice files (`*.json`), read after the shipped ones, before `--voices-dir`",
            standard: "none", accepted: "directories, colon-separated"),
        .init(
            name: "SPEAK_MODELS",
            purpose: "more directories for Piper and Whisper models, searched before the standard ones",
            standard: "none", accepted: "directories, colon-separated"),
        .init(
            name: "SPEAK_TOKEN", purpose: "the bearer token for `speak --remote` and `speak transcribe --server`",
            standard: "none: no token is sent", accepted: "the token"),
        .init(
            name: "SPEAK_TRANSCRIPTION_TOKEN",
            purpose: "where `speak transcribe --token T` puts T for the upstream client, which reads keys by name",
            standard: "unset", accepted: "set by speak itself, not by hand"),
        .init(
            name: "SPEAK_SOCKET", purpose: "the socket a local `speak serve` listens on and `speak` hands its text to",
            standard: "`$XDG_RUNTIME_DIR/speak/serve.sock`; none without `XDG_RUNTIME_DIR`",
            accepted: "a path; empty: no local socket"),
        .init(
            name: "SPEAK_WYOMING_LIMITS", purpose: "the Wyoming server's connection, deadline and length limits",
            standard: "connections=64, per-address half of it, … (Docs/home-assistant.md)",
            accepted: "`NAME=VALUE,…` of the names Docs/home-assistant.md lists; anything else is exit 64"),
        .init(
            name: "SPEAK_REALTIME_SESSIONS",
            purpose:
                "the most live transcription sessions (`/v1/realtime`) `speak serve` runs at once; one more gets 503",
            standard: "8", accepted: "0 to 1024; `--realtime-sessions` wins; anything else is exit 64"),
        .init(
            name: "SPEAK_WHISPER_BEAM_SIZE", purpose: "Whisper's beams when `--beam-size` is not given",
            standard: "1 (greedy)", accepted: "1 to 8; empty is unset; anything else is named on stderr and 1 kept"),
        .init(
            name: "SPEAK_WHISPER_SPECTROGRAM", purpose: "whose log-mel spectrogram Whisper's encoder reads",
            standard: "whisper.cpp's", accepted: "`faster-whisper`; anything else is whisper.cpp's"),
        .init(
            name: "SPEAK_WHISPER_LOG", purpose: "passes whisper.cpp's and ggml's log to stderr",
            standard: "quiet (the last error is kept for messages)", accepted: "`1`; anything else is quiet"),
        .init(
            name: "SPEAK_PIPER_THREADS",
            purpose: "the threads of ONNX Runtime's one pool, which every Piper voice shares",
            standard: "one a core, at most 4", accepted: "1 to 64; anything else is ignored"),
        .init(
            name: "SPEAK_PIPER_SPINNING", purpose: "whether ONNX Runtime's idle threads spin (busy-wait) or sleep",
            standard: "1 (spin)", accepted: "`1` or `0`; anything else is ignored"),
        .init(
            name: "SPEAK_PIPER_ARENA", purpose: "whether Piper sessions keep ONNX Runtime's CPU memory arena",
            standard: "1 (keep)", accepted: "`1` or `0`; anything else is ignored"),
        .init(
            name: "SPEAK_PIPER_PIECE", purpose: "the most phoneme code points a Piper voice is given at once",
            standard: "160", accepted: "16 to 1000; anything else is ignored"),
        .init(
            name: "SPEAK_PIPER_SHRINK_ABOVE", purpose: "pieces longer than this give back the arena memory they grew",
            standard: "100", accepted: "0 to 10000 phoneme code points; anything else is ignored"),
        .init(
            name: "SPEAK_PIPER_STREAM", purpose: "whether a split model decodes a reply's first sentence in windows",
            standard: "streams", accepted: "`0` decodes every sentence whole; anything else streams"),
        .init(
            name: "SPEAK_PIPER_DICTIONARIES", purpose: "the directory of piper-tts' espeak-ng dictionaries (`en_dict`)",
            standard: "`share/speak/piper-espeak-ng` under the executable's prefix, else /usr/local",
            accepted: "a directory, taken as it is even when empty"),
        .init(
            name: "SPEAK_PIPER_SPLIT_TOOLS",
            purpose: "the directory of `split-piper.py`, which splits installed models",
            standard: "`lib/speak/piper-split` under the executable's prefix, /usr/local, /usr",
            accepted: "a directory; empty is unset"),
        .init(
            name: "SPEAK_ONNXRUNTIME_LIB", purpose: "the ONNX Runtime library Piper voices run on",
            standard: "`lib/speak/onnxruntime/libonnxruntime.so.1` under the executable's prefix, /usr/local, /usr",
            accepted: "a file; empty is unset"),
    ]

    /// `SPEAK_VOICE`, `nil` when unset or empty.
    public var voice: String?
    /// `SPEAK_VOICES`, split at colons.
    public var voiceDirectories: [String]
    /// `SPEAK_MODELS`, split at colons.
    public var modelDirectories: [String]
    /// `SPEAK_TOKEN` as it is (an empty one too).
    public var token: String?
    /// `SPEAK_SOCKET` as it is: `nil` when unset, empty for no socket.
    public var socket: String?
    /// `SPEAK_WYOMING_LIMITS` as it is, for `WyomingLimits(parsing:)`, whose errors are the user's to see.
    public var wyomingLimits: String?
    /// `SPEAK_REALTIME_SESSIONS`: `nil` when unset or empty, a failure naming text outside 0...1024.
    public var realtimeSessions: Result<Int, RejectedValue>?
    /// `SPEAK_WHISPER_BEAM_SIZE`: `nil` when unset or empty, a failure naming text outside 1...8.
    public var whisperBeamSize: Result<Int, RejectedValue>?
    /// `SPEAK_WHISPER_SPECTROGRAM=faster-whisper`.
    public var fasterWhisperSpectrogram: Bool
    /// `SPEAK_WHISPER_LOG=1`.
    public var whisperLog: Bool
    /// `SPEAK_PIPER_THREADS` within 1...64, else `nil`.
    public var piperThreads: Int?
    /// `SPEAK_PIPER_SPINNING`, `nil` unless `1` or `0`.
    public var piperSpinning: Bool?
    /// `SPEAK_PIPER_ARENA`, `nil` unless `1` or `0`.
    public var piperArena: Bool?
    /// `SPEAK_PIPER_PIECE` within 16...1000, else `nil`.
    public var piperPiece: Int?
    /// `SPEAK_PIPER_SHRINK_ABOVE` within 0...10000, else `nil`.
    public var piperShrinkAbove: Int?
    /// `false` only for `SPEAK_PIPER_STREAM=0`.
    public var piperStream: Bool
    /// `SPEAK_PIPER_DICTIONARIES` as it is.
    public var piperDictionaries: String?
    /// `SPEAK_PIPER_SPLIT_TOOLS`, `nil` when unset or empty.
    public var piperSplitTools: String?
    /// `SPEAK_ONNXRUNTIME_LIB`, `nil` when unset or empty.
    public var onnxRuntimeLibrary: String?

    /// A value outside what its variable takes, for a message that names both.
    public struct RejectedValue: Error, Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let text: String
        public let accepted: String
        public var description: String { "\(name) must be \(accepted), not '\(text)'" }
    }

    /// This process's settings, read on first use. Through getenv: copying the whole environment
    /// into a dictionary is more than the light `speak` needs at start.
    public static let current = EnvironmentSettings { environmentValue($0) }

    /// The settings `environment` gives, as a spawned process with it would parse them.
    public init(environment: [String: String]) {
        self.init { environment[$0] }
    }

    /// The settings `value` gives for each variable's name (`nil`: unset).
    public init(_ value: (String) -> String?) {
        func nonEmpty(_ name: String) -> String? { value(name).flatMap { $0.isEmpty ? nil : $0 } }
        func list(_ name: String) -> [String] { (value(name) ?? "").split(separator: ":").map(String.init) }
        func number(_ name: String, _ range: ClosedRange<Int>) -> Int? {
            value(name).flatMap(Int.init).flatMap { range.contains($0) ? $0 : nil }
        }
        func flag(_ name: String) -> Bool? {
            switch value(name) {
            case "1": true
            case "0": false
            default: nil
            }
        }
        voice = nonEmpty("SPEAK_VOICE")
        voiceDirectories = list("SPEAK_VOICES")
        modelDirectories = list("SPEAK_MODELS")
        token = value("SPEAK_TOKEN")
        socket = value("SPEAK_SOCKET")
        wyomingLimits = value("SPEAK_WYOMING_LIMITS")
        realtimeSessions = nonEmpty("SPEAK_REALTIME_SESSIONS").map { text in
            guard let count = Int(text), (0...1024).contains(count) else {
                return .failure(RejectedValue(name: "SPEAK_REALTIME_SESSIONS", text: text, accepted: "0 to 1024"))
            }
            return .success(count)
        }
        whisperBeamSize = nonEmpty("SPEAK_WHISPER_BEAM_SIZE").map { text in
            // Foundation's `.whitespaces`: tabs and the space separators.
            let blank: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
            let scalars = text.unicodeScalars.drop(while: blank).reversed().drop(while: blank).reversed()
            // 8: whisper.cpp's most (`WhisperTranscriber.Configuration.maxBeamSize`).
            guard let size = Int(String(String.UnicodeScalarView(scalars))), (1...8).contains(size) else {
                return .failure(RejectedValue(name: "SPEAK_WHISPER_BEAM_SIZE", text: text, accepted: "1 to 8"))
            }
            return .success(size)
        }
        fasterWhisperSpectrogram = value("SPEAK_WHISPER_SPECTROGRAM") == "faster-whisper"
        whisperLog = value("SPEAK_WHISPER_LOG") == "1"
        piperThreads = number("SPEAK_PIPER_THREADS", 1...64)
        piperSpinning = flag("SPEAK_PIPER_SPINNING")
        piperArena = flag("SPEAK_PIPER_ARENA")
        piperPiece = number("SPEAK_PIPER_PIECE", 16...1000)
        piperShrinkAbove = number("SPEAK_PIPER_SHRINK_ABOVE", 0...10000)
        piperStream = value("SPEAK_PIPER_STREAM") != "0"
        piperDictionaries = value("SPEAK_PIPER_DICTIONARIES")
        piperSplitTools = nonEmpty("SPEAK_PIPER_SPLIT_TOOLS")
        onnxRuntimeLibrary = nonEmpty("SPEAK_ONNXRUNTIME_LIB")
    }
}
