import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream

/// `speak transcribe FILE… [--expect "yes|no"] [--format json|srt]`: audio files to text.
enum TranscribeCommand {
    enum Format: String {
        case text, json, srt, vtt
        var isSubtitles: Bool { self == .srt || self == .vtt }
    }

    static let help = """
        speak transcribe: audio files (wav, mp3, m4a, webm, ogg, flac) to text.

        usage: speak transcribe FILE… [--expect "yes|no|cancel"] [--language en] [--translate]
                                [--prompt TEXT] [--temperature T] [--format text|json|srt|vtt]
                                [-o FILE] [--progress] [--max-duration SECONDS]
               speak transcribe --pending [--keep]     (retry the recordings waiting in the spool)

        Recognition is local unless an upstream is named: Whisper (whisper.cpp) when a model is
        installed, else pocketsphinx.
          --engine whisper|pocketsphinx   pick the local recogniser
          --model NAME|PATH               the Whisper model: base, tiny.en, or a ggml-*.bin file
                                          (looked up in $SPEAK_MODELS, ~/.local/share/speak/models,
                                          PREFIX/share/speak/models)
          --threads N                     Whisper's threads (default: the free cores)
          --server URL [--token T]        another speak serve's /api/transcribe (token: $SPEAK_TOKEN)
          --openai URL [--model M]        an OpenAI-compatible API, e.g. https://api.groq.com/openai
                   [--key-env NAME]       (default model whisper-large-v3-turbo; key from $NAME,
                                           default OPENAI_API_KEY)
        FILE - is standard input (`speak record -o - | speak transcribe -`). With several
        files each line is "FILE: text", as grep names them; a file that fails is reported on
        standard error and the others go on (the exit code is the last failure's).
        --expect restricts recognition to the listed phrases: the reliable mode for answers in
        scripts. --translate gives the text in English whatever was spoken (a multilingual Whisper
        model such as base; an English-only recogniser transcribes). --prompt is text that comes
        before the audio or spells its names; --temperature (0...1) Whisper's first sampling
        temperature. --format json prints {"file","text","duration"} per file (--json for short);
        srt and vtt print one file's subtitles, a cue per segment (Whisper's phrases, pocketsphinx's
        words). -o FILE appends the lines to FILE instead of printing them (subtitles replace FILE).
        --progress draws a bar per file on standard error as long recordings are transcribed window
        by window. --max-duration refuses a file whose audio runs past SECONDS (default
        \(MediaDecoder.defaultMaximumSeconds), as speak serve) with exit 65 before any of it is
        transcribed; a long file is decoded and transcribed five minutes at a time, so memory does
        not grow with its length. A spooled recording is deleted only once its text is on disk.
        """

    struct Arguments {
        var files: [String] = []
        var expect: [String]?
        var language: String?
        var prompt: String?
        var temperature: Double?
        var translate = false
        var format = Format.text
        var pending = false
        var keep = false
        var progress = false
        var output: String?
        var maximumSeconds = MediaDecoder.defaultMaximumSeconds
        var upstream: TranscriptionUpstream?
        var local = Engines.LocalTranscriber()

        init(_ arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--expect":
                    guard let value = remaining.popFirst() else {
                        throw UsageError("--expect needs phrases, e.g. \"yes|no\"")
                    }
                    expect = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                        !$0.isEmpty
                    }
                case "--language":
                    guard let value = remaining.popFirst() else { throw UsageError("--language needs a value") }
                    language = value
                case "--prompt":
                    guard let value = remaining.popFirst() else { throw UsageError("--prompt needs a text") }
                    prompt = value
                case "--temperature":
                    guard let value = remaining.popFirst().flatMap(Double.init), (0...1).contains(value) else {
                        throw UsageError("--temperature needs a number in 0...1")
                    }
                    temperature = value
                case "--translate": translate = true
                case "--threads":
                    guard let value = remaining.popFirst().flatMap(Int.init), (1...64).contains(value) else {
                        throw UsageError("--threads needs a whole number in 1...64")
                    }
                    local.threads = value
                case "--format":
                    guard let value = remaining.popFirst().flatMap(Format.init(rawValue:)) else {
                        throw UsageError("--format is one of text, json, srt, vtt")
                    }
                    format = value
                case "--json": format = .json
                case _ where try parseUpstream(argument, &remaining, into: &upstream): break
                case _ where try local.parse(argument, &remaining): break
                case "-o", "--output":
                    guard let value = remaining.popFirst() else { throw UsageError("\(argument) needs a file") }
                    output = value
                case "--max-duration": maximumSeconds = try Self.maximumDuration(&remaining)
                case "--pending": pending = true
                case "--keep": keep = true
                case "--progress": progress = true
                case "--":
                    // The rest is operands, even what starts with '-'.
                    files += remaining
                    remaining = []
                case "-h", "--help": throw HelpRequested(text: TranscribeCommand.help)
                case _ where argument.hasPrefix("-") && argument.count > 1:
                    throw UsageError("unknown option \(argument) (speak transcribe --help)")
                default: files.append(argument)
                }
            }
            guard pending || !files.isEmpty else {
                throw UsageError("no files to transcribe (speak transcribe --help)")
            }
            guard !pending || files.isEmpty else {
                throw UsageError("--pending retries the spool and takes no files")
            }
            if format.isSubtitles, pending || files.count > 1 {
                throw UsageError("--format \(format.rawValue) takes one file: subtitles are one recording's")
            }
            for name in files + [output].compactMap({ $0 }) { try RawArguments.checkFileName(name) }
        }

        var options: TranscriptionOptions {
            TranscriptionOptions(
                language: language, prompt: prompt, expectedPhrases: expect, temperature: temperature,
                translate: translate)
        }

        /// The named upstream, or a recogniser here.
        func makeTranscriber() throws -> any Transcriber { try Engines.transcriber(upstream: upstream, local: local) }

        /// `--max-duration SECONDS` (shared by `speak transcribe` and `speak ask`).
        static func maximumDuration(_ remaining: inout ArraySlice<String>) throws -> Int {
            let text = remaining.popFirst()
            guard let seconds = text.flatMap(Int.init), seconds > 0 else {
                throw UsageError("--max-duration needs a whole number of seconds, at least 1, not '\(text ?? "")'")
            }
            return seconds
        }
    }

    /// `--server URL`, `--openai URL`, `--model M`, `--key-env NAME`, `--token T`: which upstream
    /// transcribes (shared by `speak transcribe` and `speak ask`). False if `argument` is none of them.
    static func parseUpstream(
        _ argument: String, _ remaining: inout ArraySlice<String>, into upstream: inout TranscriptionUpstream?
    ) throws -> Bool {
        switch argument {
        case "--server", "--openai":
            guard let url = remaining.popFirst() else { throw UsageError("\(argument) needs a URL") }
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host?.isEmpty == false
            else { throw UsageError("\(argument) needs an http:// or https:// URL, not '\(url)'") }
            upstream = TranscriptionUpstream(api: argument == "--server" ? .speak : .openai, url: url)
            upstream?.keyEnvironment = argument == "--server" ? "SPEAK_TOKEN" : "OPENAI_API_KEY"
        // Without an upstream, --model names the local Whisper model (Engines.LocalTranscriber).
        case "--model" where upstream == nil: return false
        case "--model", "--key-env", "--token":
            guard let value = remaining.popFirst() else { throw UsageError("\(argument) needs a value") }
            guard upstream != nil else { throw UsageError("\(argument) goes with --server or --openai") }
            switch argument {
            case "--model": upstream?.model = value
            case "--key-env": upstream?.keyEnvironment = value
            default:
                // The key is read from the environment, so a literal token goes there.
                setenv("SPEAK_TRANSCRIPTION_TOKEN", value, 1)
                upstream?.keyEnvironment = "SPEAK_TRANSCRIPTION_TOKEN"
            }
        default: return false
        }
        return true
    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            let arguments = try Arguments(arguments)
            let transcriber = try arguments.makeTranscriber()
            func transcript(of file: String) throws -> Transcript {
                var options = arguments.options
                let bar = arguments.progress ? ProgressBar(label: file) : nil
                if let bar { options.progress = { fraction in bar.show(fraction) } }
                let transcript = try transcribe(
                    file, with: transcriber, options: options, maximumSeconds: arguments.maximumSeconds)
                bar?.finish()
                return transcript
            }
            if arguments.format.isSubtitles {
                // One document, put in place whole once it is made: a failure leaves -o's file as it was.
                let transcript = try transcript(of: arguments.files[0])
                let document = Array((arguments.format == .srt ? transcript.subRip : transcript.webVTT).utf8)
                let output = try OutputFile(path: arguments.output ?? "-")
                try output.writing {
                    try document.withUnsafeBytes { bytes in
                        try SystemCall.writeAll("write", bytes) { pointer, count, _ in
                            Glibc.write(output.descriptor, pointer, count)
                        }
                    }
                }
                try output.commit()
                return
            }
            // The spool's recordings are removed only once transcribed (unless --keep).
            let spool = Spool()
            let files = arguments.pending ? spool.pending.map(\.path) : arguments.files
            let output = try arguments.output.map(TranscriptOutput.init(path:)) ?? TranscriptOutput()
            // One file failing does not stop the others; the last failure decides the exit code.
            var failure: (any Error)?
            for file in files {
                do {
                    let transcript = try transcript(of: file)
                    let text = arguments.pending || files.count > 1 ? "\(file): \(transcript.text)" : transcript.text
                    // Durable before the recording goes: a kill right after must not lose the text.
                    try output.write(arguments.format == .json ? json(file: file, transcript) : text)
                    if arguments.pending { try spool.markDone(URL(fileURLWithPath: file), keep: arguments.keep) }
                } catch {
                    guard files.count > 1 || arguments.pending else { throw error }
                    FileHandle.standardError.write(Data("speak: \(ExitCode.report(error).1)\n".utf8))
                    failure = error
                }
            }
            if let failure { throw AlreadyReported(code: ExitCode.report(failure).0) }
        }
    }

    /// Decodes and transcribes one file, a piece at a time; an empty transcript is "not understood".
    static func transcribe(
        _ file: String, with transcriber: any Transcriber, options: TranscriptionOptions, maximumSeconds: Int
    ) throws -> Transcript {
        // A pipe (`<(…)`, /dev/stdin) or a FIFO is a file here too.
        let input = try AudioFileInput(path: file)
        let transcript = try PiecewiseTranscription(
            transcriber: transcriber, options: options, maximumSeconds: maximumSeconds
        ).transcribe(input, name: file)
        guard !transcript.text.isEmpty else {
            throw InputError(code: .notUnderstood, message: "\(file): nothing understood (empty transcript)")
        }
        return transcript
    }

    static func json(file: String, _ transcript: Transcript) -> String {
        let object: [String: Any] = [
            "file": file, "text": transcript.text, "duration": (transcript.duration * 1000).rounded() / 1000,
        ]
        return String(
            decoding: (try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(), as: UTF8.self)
    }
}

/// `--progress`: `FILE [#####.....]  50%` on standard error, redrawn in place on a terminal and one
/// line per step elsewhere (a log keeps every step).
final class ProgressBar: Sendable {
    let label: String
    private let inPlace = isatty(STDERR_FILENO) != 0
    private let shown = Locked(-1)
    private static let width = 30

    init(label: String) { self.label = label }

    /// Draws the bar when its percentage changed.
    func show(_ fraction: Double) {
        let percent = Int((min(1, max(0, fraction)) * 100).rounded())
        guard
            shown.withLock({ shown in
                defer { shown = percent }
                return shown != percent
            })
        else { return }
        let filled = percent * Self.width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
        let line = "\(label) [\(bar)] \(String(repeating: " ", count: 3 - String(percent).count))\(percent)%"
        FileHandle.standardError.write(Data((inPlace ? "\r\(line)" : "\(line)\n").utf8))
    }

    /// The bar at 100 %, whatever the engine reported (pocketsphinx and upstreams report nothing).
    func finish() {
        show(1)
        if inPlace { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Where transcripts go, one line each: standard output, or a file appended to (`-o FILE`). Every
/// line is flushed, and fsynced when it lands in a file, before `write` returns.
struct TranscriptOutput {
    let descriptor: Int32
    let name: String

    init() {
        descriptor = STDOUT_FILENO
        name = "standard output"
    }

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        name = path
        guard descriptor >= 0 else {
            throw InputError(code: .cannotCreate, message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    func write(_ line: String) throws {
        if descriptor == STDOUT_FILENO {
            print(line)
            // All streams: `stdout` itself is a global Swift 6 will not touch.
            guard fflush(nil) == 0 else { throw failure() }
        } else {
            let bytes = Array((line + "\n").utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw failure() }
                offset += written
            }
        }
        // A regular file (-o, or standard output redirected to one) is synced; a pipe or a terminal
        // has its reader, and cannot be.
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, fsync(descriptor) != 0 {
            throw failure()
        }
    }

    private func failure() -> InputError {
        InputError(code: .cannotCreate, message: "cannot write \(name): \(String(cString: strerror(errno)))")
    }
}
