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
        let speech = SpeechOptions(
            voice: try catalog.voice(named: options.voiceName ?? VoiceCatalog.defaultVoiceName),
            rate: options.rate, pitch: options.pitch, volume: options.volume, ssml: options.ssml)
        let synthesizer = try EspeakSynthesizer.shared()
        if let notation = options.phonemes {
            return print(try synthesizer.phonemes(text, options: speech, ipa: notation == .ipa), terminator: "")
        }
        if let output = options.output {
            let progress = options.progress && !options.quiet ? ProgressBar() : nil
            defer { progress?.end() }
            return try writeFile(output, sampleRate: synthesizer.sampleRate) { write in
                try synthesizer.synthesize(text, options: speech, onProgress: progress?.show) { samples in
                    if Interrupt.requested { throw PlaybackInterrupted() }
                    try write(samples)
                }
            }
        }
        if options.cache { return try speakCached(text, speech, synthesizer) }
        try player.play(sampleRate: synthesizer.sampleRate) { write in
            try synthesizer.synthesize(text, options: speech, onChunk: write)
        }
    }

    /// `--cache`: a reply spoken before plays from the cache `speak serve` shares (so a repeated
    /// confirmation starts at once); a new one is spoken as it is synthesised and stored meanwhile.
    private func speakCached(_ text: String, _ speech: SpeechOptions, _ synthesizer: EspeakSynthesizer) throws {
        let cache = try ReplyCache(directory: ReplyCache.defaultDirectory, maximumBytes: ReplyCache.defaultMaximumBytes)
        let key = ReplyKey(speaking: text, voice: speech.voice, rate: speech.rate, pitch: speech.pitch, volume: speech.volume, format: "mp3")
        if let mp3 = cache.data(for: key), let pcm = try? PCMBuffer(audio: mp3) { return try player.play(pcm) }
        let entry = try cache.beginEntry(for: key)
        let encoder = try MP3Encoder(inputRate: synthesizer.sampleRate)
        try player.play(sampleRate: synthesizer.sampleRate) { write in
            try synthesizer.synthesize(text, options: speech) { samples in
                try write(samples)
                try entry.append(encoder.encode(Array(samples)))
            }
        }
        try entry.append(encoder.finish())
        try entry.commit()
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
            return try writeFile(output, sampleRate: pcm.sampleRate) { write in try pcm.samples.withUnsafeBufferPointer(write) }
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
    /// when complete: an interrupted or failed run leaves no half-written file behind.
    private func writeFile(_ path: String, sampleRate: Int, produce: ((UnsafeBufferPointer<Int16>) throws -> Void) throws -> Void) throws {
        let output = try OutputFile(path: path)
        guard let format = AudioFileFormat(rawValue: options.fileFormat?.lowercased() ?? (path as NSString).pathExtension.lowercased()) else {
            throw UsageError("cannot tell the format of '\(path)': name it .mp3 or .wav, or give --file-format mp3|wav")
        }
        guard MP3Settings.sampleRates.contains(options.sampleRate) else {
            throw UsageError("MP3 sample rate must be one of \(MP3Settings.sampleRates.map(String.init).joined(separator: ", "))")
        }
        let writer = try AudioFileWriter(
            file: output.handle, format: format, sampleRate: sampleRate,
            mp3: MP3Settings(sampleRate: options.sampleRate, bitrate: options.bitrate))
        try produce(writer.write)
        try writer.finish()
        try output.commit()
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
