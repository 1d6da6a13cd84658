import FoundationEssentials
import Glibc
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
        if options.fileFormat == "?" || options.dataFormat == "?" { return try listFormats() }
        try handOverFormatsNotCarried()
        Interrupt.install()
        let fileToPlay = options.playFile ?? audioFileArgument
        let synthesises = options.voiceName != "?" && options.device != "?" && fileToPlay == nil
        // Words given as arguments will be played here: take the turn at the speaker and open the
        // device now, while the voices are read (text from a file or a pipe may take its time).
        // First, as it takes longest: ALSA reads its configuration, and its PulseAudio hook loads
        // PulseAudio's client libraries. The usual voice's engine opens its library just before,
        // which is quick: the dynamic loader loads for one thread at a time, and behind the hook's
        // libraries it waits. Only with a core to run them on: when other programs keep all but one
        // busy (a build on one of two), the threads queue behind them, and one thread doing it all
        // is sooner.
        let warmUp = synthesises && Self.hasSpareCore() ? tool.synthesizers.warmUp : nil
        let opensAhead =
            !options.words.isEmpty && options.inputFile == nil && options.output == nil && options.remote == nil
            && options.phonemes == nil
        var player = self.player
        if opensAhead, let warmUp {
            warmUp.openLibrary()
            player = try player.openingAhead(sampleRate: warmUp.sampleRate)
        }
        warmUp?.prepareInBackground()
        let catalog = try VoiceCatalog.standard(adding: options.voicesDirectory)
        if options.voiceName == "?" { return print(voiceListing(catalog)) }
        if options.device == "?" { return print(deviceListing()) }
        if let file = fileToPlay { return try playFile(file) }

        var text = try readText()
        if let remote = options.remote {
            guard let speakRemotely = tool.speakRemotely else { throw NeedsFullExecutable("--remote") }
            // The server takes no markup: say's commands are left out rather than read aloud.
            let plain = options.embedded && !options.ssml ? EmbeddedCommands.plainText(text) : text
            return try speakRemotely(remote, options.token, plain, options)
        }
        let voice = try voice(in: catalog)
        var ssml = options.ssml
        if options.embedded, !ssml, let markup = EmbeddedCommands.ssml(text, rate: options.rate ?? voice.rate) {
            (text, ssml) = (markup, true)
        }
        guard tool.synthesizers.carries(voice.engine) else {
            guard tool.handsOver else {
                throw InputError(
                    code: .dataError,
                    message: "voice '\(voice.name)' names the engine '\(voice.engine)', which speak does not have "
                        + "(it has \(tool.synthesizers.engines.joined(separator: ", ")))")
            }
            throw NeedsFullExecutable("the \(voice.engine) voice '\(voice.name)'")
        }
        let request = SynthesisRequest(
            text: text,
            options: SpeechOptions(
                voice: voice, rate: options.rate, pitch: options.pitch, volume: options.volume, ssml: ssml),
            mp3: MP3Settings(sampleRate: options.sampleRate, bitrate: options.bitrate))
        if let notation = options.phonemes {
            let synthesizer = try tool.synthesizers.synthesizer(for: voice.engine)
            guard let phonemes = try synthesizer.phonemes(of: text, options: request.options, ipa: notation == .ipa)
            else {
                throw UsageError(
                    notation == .ipa
                        ? "--ipa shows the phonemes a voice is fed; '\(voice.name)' is a \(voice.engine) voice"
                        : "-x shows espeak-ng's phoneme mnemonics; '\(voice.name)' is a \(voice.engine) voice")
            }
            return print(phonemes, terminator: "")
        }
        var cache: ReplyCache?
        if options.cache {
            // A reply never depends on the cache: without one, it is spoken all the same.
            do {
                cache = try ReplyCache(
                    directory: ReplyCache.defaultDirectory, maximumBytes: ReplyCache.defaultMaximumBytes)
            } catch { writeToStandardError("speak: reply cache off: \(error)\n") }
        }
        let engine = SpeechEngine(catalog: catalog, synthesizers: tool.synthesizers, cache: cache)
        let progress = options.progress && !options.quiet ? ProgressBar() : nil
        defer { progress?.end() }
        let outcome: ReplyInfo
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
            writeToStandardError("speak: '\(voice.name)' failed (\(fallback.reason)); spoke with '\(fallback.voice)'\n")
        }
    }

    private var player: Player {
        Player(device: options.device, waitForTurn: options.waitForTurn, shouldStop: { Interrupt.requested })
    }

    /// `speak reply.mp3`: a lone argument naming an existing MP3 or WAV file plays it. A word that
    /// only looks like one ("notes.mp3" with no such file) is text to speak.
    private var audioFileArgument: String? {
        guard options.words.count == 1, let word = options.words.first,
            ReplyFormat(builtInFileExtension: FileSystem.pathExtension(of: word)) != nil, FileSystem.exists(word)
        else { return nil }
        return word
    }

    /// The largest audio file `--play` reads (a stream such as `/dev/stdin` is read to this much):
    /// about 90 minutes of 48 kHz stereo WAV, 70 hours of 32 kbps MP3.
    static let maximumAudioBytes = 1 << 30
    /// How far an input past its limit is read to tell its size: beyond, it may be endless.
    private static let countingLimit = 64 << 20

    private func playFile(_ path: String) throws {
        let limit = Self.maximumAudioBytes
        let data = try Self.read(path, limit: limit, verb: "play") { size in
            InputError(code: .dataError, message: "\(path) is \(size) bytes; speak plays at most \(limit)")
        }
        let pcm: PCMBuffer
        do {
            pcm = try PCMBuffer(audio: data)
        } catch let error as AudioFileError {
            throw InputError(code: .dataError, message: "\(path): \(error)")
        } catch let error as MPG123Error {
            throw InputError(code: .dataError, message: "\(path): not an audio file (\(error.message))")
        }
        if let output = options.output {
            return try writeFile(output) { write in
                try pcm.samples.withUnsafeBufferPointer { try write(PCMChunk(samples: $0, sampleRate: pcm.sampleRate)) }
            }
        }
        try player.play(pcm)
    }

    /// The text from the arguments, `-f FILE`, `-f -` or a piped standard input: at most
    /// `maximumTextBytes` of UTF-8 without NUL bytes (a binary file, not text).
    private func readText() throws -> String {
        let data: Data
        let tooLarge = { (size: String) in
            InputError(
                code: .dataError,
                message: "text is \(size) bytes; speak takes at most \(Self.maximumTextBytes) at once: "
                    + "split it or write parts with -o")
        }
        if let file = options.inputFile {
            guard options.words.isEmpty else { throw UsageError("give the text as arguments or with -f, not both") }
            let path = file == "-" ? nil : file
            data = try Self.read(path, limit: Self.maximumTextBytes, verb: "read", tooLarge: tooLarge)
        } else if !options.words.isEmpty {
            // Swift repairs invalid UTF-8 in argv; the raw bytes tell (of the words, not a file name's).
            guard !options.words.contains(where: RawArguments.wasRepaired) else {
                throw InputError(code: .dataError, message: "text is not UTF-8")
            }
            data = Data(options.words.joined(separator: " ").utf8)
        } else if isatty(STDIN_FILENO) == 0 {
            data = try Self.read(nil, limit: Self.maximumTextBytes, verb: "read", tooLarge: tooLarge)
        } else {
            throw UsageError(
                "no text to speak: give it as arguments, with -f FILE, or on standard input (speak --help)")
        }
        guard data.count <= Self.maximumTextBytes else { throw tooLarge(String(data.count)) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(code: .dataError, message: "text is not UTF-8")
        }
        if let nul = data.firstIndex(of: 0) {
            let offset = nul - data.startIndex
            throw InputError(code: .dataError, message: "text contains a NUL byte (at byte \(offset)): a binary file?")
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw UsageError("no text to speak: the text is empty")
        }
        return text
    }

    /// The bytes of `path` (standard input if `nil`), refusing a directory ("cannot `verb` it") and
    /// reading no more than `limit` bytes: `/dev/zero` or an endless pipe is "too large", not a hang.
    private static func read(
        _ path: String?, limit: Int, verb: String, tooLarge: (String) -> InputError
    ) throws -> Data {
        let file: Int32
        if let path {
            try RawArguments.checkFileName(path)
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw InputError(code: .noInput, message: "cannot \(verb) \(path): it is a directory")
            }
            file = open(path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else {
                // A FIFO's open waits for a writer; Ctrl-C ends the wait.
                if errno == EINTR, Interrupt.requested { throw PlaybackInterrupted() }
                throw InputError(code: .noInput, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
        } else {
            file = STDIN_FILENO
        }
        defer { if file != STDIN_FILENO { close(file) } }
        // A regular file's size is known before reading it.
        var status = stat()
        if fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > limit {
            throw tooLarge(String(status.st_size))
        }
        var data = Data()
        var total = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
        defer { chunk.deallocate() }
        // Ctrl-C ends a wait for text that does not come (a terminal, a silent pipe).
        let interrupted = { Interrupt.requested }
        do throws(SystemCallError) {
            // Past the limit, the rest is only counted, up to 64 MiB, to say how large it was.
            while total <= max(limit, Self.countingLimit) {
                // A Ctrl-C just before the read would not interrupt it.
                if Interrupt.requested { throw SystemCallError("read", code: EINTR) }
                let count = try SystemCall.retrying("read", stoppingIf: interrupted) {
                    Glibc.read(file, chunk.baseAddress, chunk.count)
                }
                if count == 0 { break }
                total += count
                if data.count <= limit { data.append(contentsOf: chunk[..<count]) }
            }
        } catch {
            if error.code == EINTR { throw PlaybackInterrupted() }
            let name = path ?? "standard input"
            throw InputError(code: .noInput, message: "cannot read \(name): \(error.message)")
        }
        guard total <= limit else {
            throw tooLarge(total > Self.countingLimit ? "more than \(limit)" : String(total))
        }
        return data
    }

    /// Writes what `produce` gives to `path` through a temporary file, renamed into place only
    /// when complete: an interrupted or failed run leaves no half-written file behind (a FIFO or a
    /// device is written in place: see `OutputFile`). The file is opened at the first chunk's rate.
    private func writeFile<Result>(_ path: String, produce: ((PCMChunk) throws -> Void) throws -> Result) throws
        -> Result
    {
        let output = try OutputFile(path: path)
        let format = try outputFormat(of: path)
        var writer: (any AudioSink)?
        let result = try produce { chunk in
            try output.writing {
                if writer == nil {
                    writer = try sink(for: format, file: output.descriptor, sampleRate: chunk.sampleRate)
                }
                try writer!.write(chunk.samples)
            }
        }
        try output.writing { try writer?.finish() }
        try output.commit()
        return result
    }

    /// `-v '?'`: every voice with its engine, and why one cannot speak here yet.
    private func voiceListing(_ catalog: VoiceCatalog) -> String {
        let engine = SpeechEngine(catalog: catalog, synthesizers: tool.synthesizers)
        return catalog.listing { voice in
            guard case .failure(let error)? = engine.availability(of: voice) else { return nil }
            if case .engineUnavailable(_, let reason) = error { return "not installed: \(reason)" }
            return String(describing: error)
        }
    }

    private func deviceListing() -> String {
        Player.devices().map { device in
            ([device.name] + device.description.split(separator: "\n").map { "    " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

extension VoiceCatalog {
    /// The shipped voices, then the user's (`$XDG_DATA_HOME/speak/voices`, where `speak voices
    /// install` writes), then `$SPEAK_VOICES` (colon-separated), then `directory`: later files
    /// replace earlier voices of the same name.
    package static func standard(adding directory: String?) throws -> VoiceCatalog {
        let listed = EnvironmentSettings.current.voiceDirectories
        let data = environmentValue("XDG_DATA_HOME") ?? ((environmentValue("HOME") ?? "/tmp") + "/.local/share")
        let user = [data + "/speak/voices"].filter(FileSystem.exists)
        let directories = [shippedDirectory()?.path].compactMap { $0 } + user + listed + [directory].compactMap { $0 }
        return try VoiceCatalog(directories: directories.map { URL(fileURLWithPath: $0) })
    }
}

extension SpeakCommand {
    /// Whether a core is free for the threads that overlap start-up.
    static func hasSpareCore() -> Bool {
        hasSpareCore(othersRunning: RunnableTasks.othersRunning(), cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The same for /proc/loadavg's line `loadAverage`. Unreadable, it says nothing against overlapping.
    package static func hasSpareCore(loadAverage: some Collection<UInt8>, cores: Int) -> Bool {
        hasSpareCore(othersRunning: RunnableTasks.othersRunning(loadAverage: loadAverage), cores: cores)
    }

    private static func hasSpareCore(othersRunning: Int?, cores: Int) -> Bool {
        guard let othersRunning else { return true }
        return othersRunning < cores - 1
    }
}
