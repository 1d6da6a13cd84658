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

    static var flags: CommandFlags<Arguments> {
        CommandFlags(
            command: "speak transcribe",
            summary: """
                speak transcribe: audio files (wav, mp3, m4a, webm, ogg, flac) to text.

                usage: speak transcribe FILE… [--expect "yes|no|cancel"] [--language en] [--translate]
                                        [--prompt TEXT] [--temperature T] [--format text|json|srt|vtt]
                                        [-o FILE] [--progress] [--max-duration SECONDS]
                       speak transcribe --live FILE [--json]   (captions as if FILE were being spoken)
                       speak transcribe --pending [--keep]     (retry the recordings waiting in the spool)

                Recognition is local unless an upstream is named (--server, --openai): Whisper
                (whisper.cpp) when a model is installed, else pocketsphinx.
                FILE - is standard input (`speak record -o - | speak transcribe -`). With several
                files each line is "FILE: text", as grep names them; a file that fails is reported on
                standard error and the others go on (the exit code is the last failure's).
                A long file is decoded and transcribed five minutes at a time, so memory does not grow
                with its length. A spooled recording is deleted only once its text is on disk.
                --live plays FILE at its own pace to the live recogniser, as `speak record --live` hears a
                microphone: on a terminal the line is rewritten as words settle; elsewhere each turn is
                one line once its speaker pauses; --json prints every event, one a line.
                """,
            flags: [
                .value(
                    "--expect", value: "\"A|B\"",
                    help: "restrict recognition to the listed phrases: the reliable mode for answers in scripts"
                ) {
                    $0.expect = $1.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                        !$0.isEmpty
                    }
                },
                .value("--language", value: "CODE", help: "the language spoken (en, de…); default: detected") {
                    $0.language = $1
                },
                .switch(
                    "--translate",
                    help: """
                        the text in English whatever was spoken (a multilingual Whisper model such as base;
                        an English-only recogniser transcribes)
                        """
                ) { $0.translate = true },
                .value("--prompt", value: "TEXT", help: "text that comes before the audio or spells its names") {
                    $0.prompt = $1
                },
                .value("--temperature", value: "T", help: "Whisper's first sampling temperature, 0...1") {
                    guard let value = Double($1), (0...1).contains(value) else {
                        throw UsageError("--temperature needs a number in 0...1")
                    }
                    $0.temperature = value
                },
                .value(
                    "--format", value: "F",
                    help: """
                        text, json ({"file","text","duration"} per file), or srt or vtt (one file's
                        subtitles, a cue per segment: Whisper's phrases, pocketsphinx's words)
                        """
                ) {
                    guard let format = Format(rawValue: $1) else {
                        throw UsageError("--format is one of text, json, srt, vtt")
                    }
                    $0.format = format
                },
                .switch("--json", help: "--format json") { $0.format = .json },
                .switch(
                    "--live",
                    help: """
                        captions of one FILE played at its own pace; with --json one event a line: {"type":
                        "partial"|"final"|"completed"|"speech_started"|"speech_stopped", "text", "start", "end",
                        "time"}, times in seconds
                        """
                ) { $0.live = true },
                .value(
                    "-o", "--output", value: "FILE",
                    help: "append the lines to FILE instead of printing them (subtitles replace FILE)"
                ) { $0.output = $1 },
                .switch("--progress", help: "a bar per file on standard error, window by window") {
                    $0.progress = true
                },
                TranscriptionFlags.maximumDuration(\.maximumSeconds),
                .switch("--pending", help: "transcribe the recordings waiting in the spool") { $0.pending = true },
                .switch("--keep", help: "with --pending, keep the recordings once transcribed") { $0.keep = true },
            ]
                + TranscriptionFlags.local(\.local, upstream: \.upstream)
                + [
                    .number(
                        "--threads", value: "N", in: 1...64, what: "--threads",
                        help: "Whisper's threads (default: the free cores)"
                    ) { $0.local.threads = $1 }
                ]
                + TranscriptionFlags.upstream(\.upstream))
    }

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
        var live = false
        var output: String?
        var maximumSeconds = TranscriptionEngine.defaultMaximumSeconds
        var upstream: TranscriptionUpstream?
        var local = Engines.LocalTranscriber()

        init(_ arguments: [String]) throws {
            try flags.scan(arguments, into: &self) { $0.files.append($1) }
            guard pending || !files.isEmpty else {
                throw UsageError("no files to transcribe (speak transcribe --help)")
            }
            guard !pending || files.isEmpty else {
                throw UsageError("--pending retries the spool and takes no files")
            }
            if format.isSubtitles, pending || files.count > 1 {
                throw UsageError("--format \(format.rawValue) takes one file: subtitles are one recording's")
            }
            if live {
                guard !pending, files.count == 1 else { throw UsageError("--live takes one file, played at its pace") }
                guard !format.isSubtitles else {
                    throw UsageError("--live prints captions, not --format \(format.rawValue)")
                }
                guard output == nil, !progress else {
                    throw UsageError("--live prints to standard output, without -o or --progress")
                }
            }
            for name in files + [output].compactMap({ $0 }) { try RawArguments.checkFileName(name) }
        }

        var options: TranscriptionOptions {
            TranscriptionOptions(
                language: language, prompt: prompt, expectedPhrases: expect, temperature: temperature,
                translate: translate)
        }

        /// The named upstream, or a recogniser here.
        func makeTranscription() throws -> TranscriptionEngine {
            Engines.transcription(try Engines.transcriber(upstream: upstream, local: local))
        }

    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            let arguments = try Arguments(arguments)
            let transcription = try arguments.makeTranscription()
            if arguments.live {
                return try caption(
                    arguments.files[0], with: transcription, options: arguments.options,
                    maximumSeconds: arguments.maximumSeconds, json: arguments.format == .json)
            }
            func transcript(of file: String) throws -> Transcript {
                var options = arguments.options
                let bar = arguments.progress ? ProgressBar(label: file) : nil
                if let bar { options.progress = { fraction in bar.show(fraction) } }
                let transcript = try transcribe(
                    file, with: transcription, options: options, maximumSeconds: arguments.maximumSeconds)
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
        _ file: String, with engine: TranscriptionEngine, options: TranscriptionOptions, maximumSeconds: Int
    ) throws -> Transcript {
        let transcript = try transcript(of: file, engine: engine, options: options, maximumSeconds: maximumSeconds)
        guard !transcript.text.isEmpty else {
            throw InputError(code: .notUnderstood, message: "\(file): nothing understood (empty transcript)")
        }
        return transcript
    }

    /// `path` (a pipe, `<(…)` or a FIFO too) decoded and transcribed through the engine, a piece at a
    /// time; audio it cannot take is ``InputError`` 65 naming `path`.
    static func transcript(
        of path: String, engine: TranscriptionEngine, options: TranscriptionOptions, maximumSeconds: Int
    ) throws -> Transcript {
        try decoding(path) { input in
            try engine.transcribe(descriptor: input.descriptor, maximumSeconds: maximumSeconds, options: options)
        }
    }

    /// `--live`: `path` decoded as ``transcript(of:engine:options:maximumSeconds:)`` decodes it, and
    /// played at its own pace to a live session, whose captions are printed as they come. A file
    /// past `maximumSeconds` is refused before any of it is played; one where nothing is understood
    /// is ``ExitCode/notUnderstood`` once it is over.
    static func caption(
        _ path: String, with engine: TranscriptionEngine, options: TranscriptionOptions, maximumSeconds: Int,
        json: Bool
    ) throws {
        let rate = TranscriptionEngine.sampleRate
        let captions = LiveCaptions(
            session: try engine.live(.transcription, options: options),
            style: .of(json: json, descriptor: STDOUT_FILENO))
        try decoding(path) { input in
            func decoded() throws -> any DecodedAudioStream {
                try engine.decoder.stream(
                    descriptor: input.descriptor, sampleRate: rate, maximumSeconds: maximumSeconds)
            }
            guard try decoded().skipToEnd() >= rate / 100 else { throw AudioFileError.tooShort }
            try captions.play(decoded())
        }
        guard !captions.turns.isEmpty else {
            throw InputError(code: .notUnderstood, message: "\(path): nothing understood (empty transcript)")
        }
    }

    /// Runs `body` with `path` open; audio it cannot take is ``InputError`` 65 naming `path`.
    private static func decoding<Result>(_ path: String, _ body: (AudioFileInput) throws -> Result) throws -> Result {
        let input = try AudioFileInput(path: path)
        do {
            return try withExtendedLifetime(input) { try body(input) }
        } catch AudioFileError.tooLong(let limit) {
            let reason = "is longer than \(limit) s, the most speak transcribes (--max-duration allows more)"
            throw InputError(code: .dataError, message: "\(path) \(reason)")
        } catch let error as AudioFileError {
            throw InputError(code: .dataError, message: "\(path): \(error)")
        }
    }

    static func json(file: String, _ transcript: Transcript) -> String {
        let object: JSONValue = [
            "file": .string(file), "text": .string(transcript.text),
            "duration": .number((transcript.duration * 1000).rounded() / 1000),
        ]
        return object.canonical
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
