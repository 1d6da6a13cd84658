import Foundation
import SpeakKit

/// `speak [options] [text…]`: speaks, writes a file, plays a file, or lists voices and devices.
package struct SpeakCommand {
    /// About six hours of speech; a larger text is almost certainly a mistake (a binary, a log).
    package static let maximumTextBytes = 512 * 1024

    package let options: Options
    package let tool: CommandLineTool

    package static func main(_ arguments: [String], tool: CommandLineTool) -> Int32 {
        runReporting { try SpeakCommand(options: Options(arguments: arguments), tool: tool).run() }
    }

    package func run() throws {
        if options.help { return print(helpText) }
        if options.version { return print("speak \(speakVersion)") }
        Interrupt.install()
        let catalog = try VoiceCatalog.standard(adding: options.voicesDirectory)
        if options.voiceName == "?" { return print(catalog.listing) }
        if options.device == "?" { return print(deviceListing()) }
        if let file = options.playFile ?? audioFileArgument { return try playFile(file) }

        let text = try readText()
        if let remote = options.remote {
            guard let speakRemotely = tool.speakRemotely else { throw NeedsFullExecutable("--remote") }
            return try speakRemotely(remote, options.token, text, options)
        }
        let voice = try catalog.voice(named: options.voiceName ?? VoiceCatalog.defaultVoiceName)
        guard tool.synthesizers.carries(voice.engine) else { throw NeedsFullExecutable("the \(voice.engine) voice '\(voice.name)'") }
        let request = SynthesisRequest(
            text: text,
            options: SpeechOptions(voice: voice, rate: options.rate, pitch: options.pitch, volume: options.volume, ssml: options.ssml),
            mp3: MP3Settings(sampleRate: options.sampleRate, bitrate: options.bitrate))
        if let notation = options.phonemes {
            guard let espeak = try tool.synthesizers.synthesizer(for: voice.engine) as? EspeakSynthesizer else {
                throw UsageError("-x and --ipa show espeak-ng's phonemes; '\(voice.name)' is a \(voice.engine) voice")
            }
            return print(try espeak.phonemes(text, options: request.options, ipa: notation == .ipa), terminator: "")
        }
        let cache = options.cache ? try ReplyCache(directory: ReplyCache.defaultDirectory, maximumBytes: ReplyCache.defaultMaximumBytes) : nil
        let engine = SpeechEngine(catalog: catalog, synthesizers: tool.synthesizers, cache: cache)
        let progress = options.progress && !options.quiet ? ProgressBar() : nil
        defer { progress?.end() }
        let outcome: SpeechEngine.Outcome
        if let output = options.output {
            outcome = try writeFile(output) { write in
                try engine.synthesize(request, onProgress: progress?.show) { chunk in
                    if Interrupt.requested { throw PlaybackInterrupted() }
                    try write(chunk)
                }
            }
        } else {
            outcome = try engine.play(request, on: player, onProgress: progress?.show)
        }
        if let fallback = outcome.fallback, !options.quiet {
            FileHandle.standardError.write(Data("speak: '\(voice.name)' failed (\(fallback.reason)); spoke with '\(fallback.voice)'\n".utf8))
        }
    }

    private var player: Player {
        Player(device: options.device, waitForTurn: options.waitForTurn, shouldStop: { Interrupt.requested })
    }

    /// `speak reply.mp3`: a lone argument naming an existing MP3 or WAV file plays it.
    private var audioFileArgument: String? {
        guard options.words.count == 1, let word = options.words.first,
            AudioFileFormat(pathExtension: (word as NSString).pathExtension) != nil,
            FileManager.default.fileExists(atPath: word)
        else { return nil }
        return word
    }

    private func playFile(_ path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(code: .noInput, message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let pcm: PCMBuffer
        do { pcm = try PCMBuffer(audio: data) } catch let error as AudioFileError { throw InputError(code: .dataError, message: "\(path): \(error)") }
        if let output = options.output {
            return try writeFile(output) { write in
                try pcm.samples.withUnsafeBufferPointer { try write(PCMChunk(samples: $0, sampleRate: pcm.sampleRate)) }
            }
        }
        try player.play(pcm)
    }

    /// The text from the arguments, `-f FILE`, `-f -` or a piped standard input.
    private func readText() throws -> String {
        let data: Data
        if let file = options.inputFile {
            guard options.words.isEmpty else { throw UsageError("give the text as arguments or with -f, not both") }
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else if let contents = FileManager.default.contents(atPath: file) {
                data = contents
            } else {
                throw InputError(code: .noInput, message: "cannot read \(file): \(String(cString: strerror(errno)))")
            }
        } else if !options.words.isEmpty {
            data = Data(options.words.joined(separator: " ").utf8)
        } else if isatty(STDIN_FILENO) == 0 {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            throw UsageError("no text to speak: give it as arguments, with -f FILE, or on standard input (speak --help)")
        }
        guard data.count <= Self.maximumTextBytes else {
            throw InputError(
                code: .dataError,
                message: "text is \(data.count) bytes; speak takes at most \(Self.maximumTextBytes) at once: split it or write parts with -o")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(code: .dataError, message: "text is not UTF-8")
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw UsageError("no text to speak: the text is empty")
        }
        return text
    }

    /// Writes what `produce` gives to `path` through a temporary file, renamed into place only
    /// when complete: an interrupted or failed run leaves no half-written file behind (a FIFO or a
    /// device is written in place: see `OutputFile`). The file is opened at the first chunk's rate.
    private func writeFile<Result>(_ path: String, produce: ((PCMChunk) throws -> Void) throws -> Result) throws -> Result {
        let output = try OutputFile(path: path)
        guard let format = AudioFileFormat(rawValue: options.fileFormat?.lowercased() ?? (path as NSString).pathExtension.lowercased()) else {
            throw UsageError("cannot tell the format of '\(path)': name it .mp3 or .wav, or give --file-format mp3|wav")
        }
        guard MP3Settings.sampleRates.contains(options.sampleRate) else {
            throw UsageError("MP3 sample rate must be one of \(MP3Settings.sampleRates.map(String.init).joined(separator: ", "))")
        }
        var writer: AudioFileWriter?
        let result = try produce { chunk in
            try output.writing {
                if writer == nil {
                    writer = try AudioFileWriter(
                        file: output.handle, format: format, sampleRate: chunk.sampleRate,
                        mp3: MP3Settings(sampleRate: options.sampleRate, bitrate: options.bitrate))
                }
                try writer!.write(chunk.samples)
            }
        }
        try output.writing { try writer?.finish() }
        try output.commit()
        return result
    }

    private func deviceListing() -> String {
        Player.devices().map { device in
            ([device.name] + device.description.split(separator: "\n").map { "    " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

extension VoiceCatalog {
    /// The shipped voices, then `$SPEAK_VOICES` (colon-separated), then `directory`: later files
    /// replace earlier voices of the same name.
    package static func standard(adding directory: String?) throws -> VoiceCatalog {
        let environment = ProcessInfo.processInfo.environment["SPEAK_VOICES"]?.split(separator: ":").map(String.init) ?? []
        let directories = [shippedDirectory()?.path].compactMap { $0 } + environment + [directory].compactMap { $0 }
        return try VoiceCatalog(directories: directories.map { URL(fileURLWithPath: $0) })
    }
}
