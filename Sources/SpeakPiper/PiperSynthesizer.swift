import FoundationEssentials
import Glibc
import SpeakKit

/// A Piper voice's settings in its voice file:
///
///     {"name": "joe", "language": "en-US", "engine": "piper",
///      "piper": {"model": "en_US-joe-medium.onnx", "speaker": 0}}
///
/// `model` is a file name looked up in the models directories, or a path.
public struct PiperVoiceSettings: Codable, Sendable, Equatable {
    public var model: String
    /// The speaker of a multi-speaker model: its id, 0 for single-speaker models.
    public var speaker: Int?
    /// Overrides the config's `length_scale` (larger is slower); the rate scales it further.
    public var lengthScale: Double?

    public init(model: String, speaker: Int? = nil, lengthScale: Double? = nil) {
        self.model = model
        self.speaker = speaker
        self.lengthScale = lengthScale
    }
}

/// Neural voices: Piper models (VITS, ONNX) run in process by ONNX Runtime, fed the phoneme ids
/// piper-tts would feed them (``PiperPhonemizer``).
///
/// Text is split into sentences, and those into pieces of bounded length (at clause marks, then
/// words: ``PiperPhonemizer/pieces(_:limit:)``); each piece is synthesised and handed on while the
/// next is synthesised on another thread. Each model is loaded once per process, on
/// first use, and shared by every voice and caller that names it.
public final class PiperSynthesizer: Synthesizer {
    public static let engineName = "piper"
    /// The rate (words per minute) at which a voice speaks at the model's own length scale.
    public static let normalRate = 175
    /// The piece limit at `speed` (1 / length scale): slower speech makes longer audio of the same
    /// phonemes, so it gets fewer; faster speech no more (pieces are whole clauses as often as can be).
    static func pieceLimit(_ limit: Int, speed: Float) -> Int {
        max(Int((Double(limit) * min(Double(speed), 1)).rounded()), 16)
    }

    public let modelDirectories: [URL]
    private let models = Locked<[String: ModelSlot]>([:])

    /// `.natural`: OpenAI's voice names and a Wyoming request by language get a Piper voice.
    public var features: SynthesisFeatures { [.rate, .volume, .streaming, .natural] }
    public func kind(of voice: Voice) -> String { "neural" }

    /// How text is cut and models run: the composition's, else the standard settings.
    let settings: PiperSettings

    public init(
        modelDirectories: [URL] = PiperSynthesizer.defaultModelDirectories(), settings: PiperSettings = .init()
    ) {
        self.modelDirectories = modelDirectories
        self.settings = settings
    }

    /// `SPEAK_MODELS` (a colon list), `$XDG_DATA_HOME/speak/models`, `<exe>/../share/speak/models`,
    /// `/usr/local/share/speak/models`, `/usr/share/speak/models`.
    public static func defaultModelDirectories(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [URL] {
        var paths = EnvironmentSettings(environment: environment).modelDirectories
        paths.append(userModelsDirectory(environment: environment).path)
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        paths.append(bin.appendingPathComponent("../share/speak/models").standardizedFileURL.path)
        paths += ["/usr/local/share/speak/models", "/usr/share/speak/models"]
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }.map { URL(fileURLWithPath: $0) }
    }

    /// `$XDG_DATA_HOME/speak/models` (`~/.local/share/speak/models`): where `speak voices install` puts models.
    public static func userModelsDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        xdg("XDG_DATA_HOME", ".local/share", environment).appendingPathComponent("speak/models")
    }

    static func xdg(_ variable: String, _ fallback: String, _ environment: [String: String]) -> URL {
        if let path = environment[variable], path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: homeDirectory(environment)).appendingPathComponent(fallback)
    }

    static func homeDirectory(_ environment: [String: String]) -> String {
        environment["HOME"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) } ?? "/"
    }

    // MARK: - Models

    /// The model file `voice` names: a path, or a name found in the models directories.
    public func modelFile(for voice: Voice) throws(PiperError) -> URL {
        let name = try settings(of: voice).model
        if name.contains("/") {
            let url = URL(fileURLWithPath: Self.expandingTilde(name))
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw .modelNotFound(url.path, searched: [url.deletingLastPathComponent().path])
            }
            return url
        }
        let file = name.hasSuffix(".onnx") ? name : name + ".onnx"
        for directory in modelDirectories {
            let url = directory.appendingPathComponent(file)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        throw .modelNotFound(file, searched: modelDirectories.map(\.path))
    }

    func settings(of voice: Voice) throws(PiperError) -> PiperVoiceSettings {
        do { return try voice.settings(as: PiperVoiceSettings.self) } catch {
            throw .invalidConfig(voice.name, error.description)
        }
    }

    /// The loaded model for `voice`: loaded now if this is the first use of its file in this
    /// process (callers for the same model meanwhile wait for it), shared after.
    func model(for voice: Voice) throws(PiperError) -> PiperModel {
        let file = try modelFile(for: voice).resolvingSymlinksInPath()
        let slot = models.withLock { models in
            if let slot = models[file.path] { return slot }
            let slot = ModelSlot()
            models[file.path] = slot
            return slot
        }
        return try slot.model.withLock { (loaded: inout PiperModel?) throws(PiperError) -> PiperModel in
            if let loaded { return loaded }
            let runtime = try OnnxRuntime.shared()
            let files = try PiperVoicePreparation.files(of: file)
            let model = try PiperModel(
                files: files, config: try PiperVoiceConfig(contentsOf: files.config), runtime: runtime,
                shrinkAbove: settings.shrinkAbove)
            loaded = model
            return model
        }
    }

    /// Not-installed voices by `voice:NAME`, for `/ready`: no model file, no config beside it, or
    /// no ONNX Runtime. Cheap: nothing is loaded.
    public func problems(with voices: [Voice]) -> [String: String] {
        var problems: [String: String] = [:]
        let runtime = OnnxRuntime.candidates().contains { FileManager.default.fileExists(atPath: $0) }
        for voice in voices where voice.engine == Self.engineName {
            do throws(PiperError) {
                let model = try modelFile(for: voice)
                let config = PiperVoicePreparation.configFile(for: model)
                guard FileManager.default.fileExists(atPath: config.path) else {
                    throw PiperError.configMissing(model.path)
                }
                guard runtime else { throw PiperError.runtimeUnavailable("no libonnxruntime.so.1") }
            } catch {
                problems["voice:\(voice.name)"] = error.description
            }
        }
        return problems
    }

    /// Whether `voice` can speak here (its model, config and the runtime are installed).
    public func isInstalled(_ voice: Voice) -> Bool { problems(with: [voice]).isEmpty }

    // MARK: - Synthesis

    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?, onChunk: (PCMChunk) throws -> Void
    ) throws {
        let voice = options.voice
        // A voice file that is wrong is the voice's fault (65), not a damaged model's.
        let settings = try voice.settings(as: PiperVoiceSettings.self)
        let model: PiperModel
        do {
            model = try self.model(for: voice)
        } catch {
            let reason = "voice '\(voice.name)': \(error)"
            switch error {
            case .corruptModel, .invalidConfig, .loadFailed:
                throw SynthesisError.modelDamaged(engine: Self.engineName, reason: reason)
            default: throw SynthesisError.engineUnavailable(engine: Self.engineName, reason: reason)
            }
        }
        let plain = options.ssml ? Self.textOfSSML(text) : text
        let sentences = try PiperPhonemizer.sentences(plain, voice: model.config.espeakVoice)
        // The length scale the model runs with: the voice's (else the config's), scaled by the rate.
        let scale = settings.lengthScale ?? model.config.lengthScale
        let lengthScale = scale > 0 ? scale : 1
        // OpenAI's speed range, 0.25–4 of the normal rate (espeak-ng's 80–450 words per minute is narrower).
        let factor = min(max(Double(options.effectiveRate) / Double(Self.normalRate), 0.25), 4)
        let speed = Float(factor / lengthScale)
        let ids = model.config.phonemeIDs
        let pieces = PiperPhonemizer.pieces(sentences, limit: Self.pieceLimit(self.settings.pieceLimit, speed: speed))
            .map {
                piece in
                piece.unicodeScalars.filter { ids[$0] != nil }.map { Int32(bitPattern: $0.value) }
            }.filter { !$0.isEmpty }
        guard !pieces.isEmpty else { return }
        let speaker = min(max(settings.speaker ?? 0, 0), max(model.speakers - 1, 0))
        let gain = Float(options.volume) / 100
        let rateHz = model.sampleRate

        // One piece ahead: the next is synthesised while this one is handed on (played, sent). A
        // reply's first sentence comes a window at a time when the model is split.
        let pipeline = PiperPipeline(capacity: 1)
        let streamed = model.split.flatMap {
            self.settings.streamsFirstSentence && !options.continuesReply ? Float($0.layout.peak) * 1.2 : nil
        }
        startDetachedThread {
            for (turn, piece) in pieces.enumerated() {
                guard !pipeline.cancelled else { break }
                do throws(PiperError) {
                    // Only on an idle model: beside other replies the first audio waits its turn
                    // anyway, and the windows' context would cost the machine's throughput.
                    if turn == 0, let streamed, model.turns.isIdle {
                        var scale = StreamedScale(estimate: streamed)
                        try model.stream(piece, speaker: speaker, speed: speed, turn: turn) { audio, last in
                            let first = scale.windows == 0
                            let (peak, previous) = scale.next(audio)
                            pipeline.put(
                                .success(
                                    .init(
                                        samples: audio, peak: peak, rampFrom: previous, starts: first, ends: last)))
                            return !pipeline.cancelled
                        }
                    } else {
                        let audio = try model.generate(piece, speaker: speaker, speed: speed, turn: turn)
                        pipeline.put(.success(.init(samples: audio, peak: nil, starts: true, ends: true)))
                    }
                } catch {
                    pipeline.put(.failure(error))
                    break
                }
            }
            pipeline.finish()
        }
        defer { pipeline.cancelAndWait() }
        var done = 0
        while let next = pipeline.take() {
            let audio: PiperPipeline.Audio
            do {
                audio = try next.get()
            } catch {
                // The model loaded but cannot run: damaged (65, and 503 for this voice alone).
                throw SynthesisError.modelDamaged(engine: Self.engineName, reason: "voice '\(voice.name)': \(error)")
            }
            let samples = Self.pcm(
                audio.samples, gain: gain, sampleRate: rateHz, peak: audio.peak, rampFrom: audio.rampFrom,
                fadeIn: audio.starts, fadeOut: audio.ends)
            try samples.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: rateHz)) }
            guard audio.ends else { continue }
            done += 1
            onProgress?(Double(done) / Double(pieces.count))
        }
    }

    /// The phonemes the model is fed for `text` (IPA, as piper-tts makes them), a sentence a line;
    /// `nil` for espeak-ng's mnemonics (`ipa` false), which a Piper voice is not fed.
    public func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? {
        guard ipa else { return nil }
        let config = try PiperVoiceConfig(
            contentsOf: PiperVoicePreparation.configFile(for: modelFile(for: options.voice)))
        let plain = options.ssml ? Self.textOfSSML(text) : text
        let sentences = try PiperPhonemizer.sentences(plain, voice: config.espeakVoice)
        return sentences.map { $0.phonemes + "\n" }.joined()
    }

    /// 16-bit PCM of one sentence as piper-tts makes it (peak-normalised), scaled by `gain`, with a
    /// 2 ms fade at each end so that sentences join without a click. A window of a sentence is
    /// scaled by the given `peak` instead (moving there over its first 10 ms from `rampFrom`, the
    /// window before's), and faded only at the sentence's own ends.
    static func pcm(
        _ audio: [Float], gain: Float, sampleRate: Int, peak given: Float? = nil, rampFrom: Float? = nil,
        fadeIn: Bool = true, fadeOut: Bool = true
    ) -> [Int16] {
        func scale(_ peak: Float) -> Float { peak < 1e-8 ? 0 : gain / peak }
        let target = scale(given ?? audio.reduce(Float(0)) { max($0, abs($1)) })
        let start = rampFrom.map(scale) ?? target
        let ramp = min(sampleRate / 100, audio.count)
        let fade = min(sampleRate / 500, audio.count / 2)
        var out = [Int16](repeating: 0, count: audio.count)
        for index in audio.indices {
            let moved = index < ramp ? Float(index) / Float(ramp) : 1
            var value = audio[index] * (start + (target - start) * moved)
            if fadeIn, index < fade { value *= Float(index) / Float(fade) }
            if fadeOut, audio.count - 1 - index < fade { value *= Float(audio.count - 1 - index) / Float(fade) }
            out[index] = Int16(max(-1, min(1, value)) * 32767)
        }
        return out
    }

    /// What each window of a streamed sentence is scaled by. Piper scales a sentence by its own
    /// loudest sample, which is known only once it is all decoded: the first window is scaled by
    /// `estimate` (the voice's loudest at install, with headroom: never clipped, a few dB quiet),
    /// each later one by the loudest sample decoded so far, which is the sentence's own peak once
    /// the loudest part is in (most sentences fit in two windows).
    struct StreamedScale {
        let estimate: Float
        private var loudest: Float = 0
        private var current: Float?
        private(set) var windows = 0

        init(estimate: Float) { self.estimate = estimate }

        /// The peak to scale `window` by, and the one the window before was scaled by.
        mutating func next(_ window: [Float]) -> (peak: Float, previous: Float?) {
            loudest = window.reduce(loudest) { max($0, abs($1)) }
            let peak = windows == 0 ? max(estimate, loudest) : loudest
            defer { (current, windows) = (peak, windows + 1) }
            return (peak, current)
        }
    }

    /// `~/x` as `$HOME/x`, as a shell expands it (`~user/x` is left as it is).
    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return homeDirectory(ProcessInfo.processInfo.environment) + path.dropFirst()
    }

    /// The text of SSML markup: tags dropped, the five XML entities decoded.
    static func textOfSSML(_ markup: String) -> String {
        var text = markup.replacing(/<[^>]*>/, with: " ")
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacing(entity, with: character)
        }
        return text
    }
}

/// Where one model file's loaded model lives once loaded; its lock is held while it loads.
private final class ModelSlot: Sendable {
    let model = Locked<PiperModel?>(nil)
}
