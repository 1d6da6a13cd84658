internal import CSherpaOnnx
import FoundationEssentials
import Glibc
import SpeakKit
import Synchronization

/// One Piper model loaded into sherpa-onnx, shared by every voice and request that uses it.
///
/// sherpa-onnx's generate may run concurrently on one model (ONNX Runtime sessions allow
/// concurrent runs; measured on this model: two threads at once give complete, correct audio).
/// Concurrent calls are bounded to the number of cores, so memory does not grow with callers, and
/// callers take turns piece by piece (``FairTurns``), so a short request is not queued behind long ones.
/// The sherpa-onnx handle is made once and only read after; generate is safe to call concurrently.
final class PiperModel: @unchecked Sendable {
    let files: PiperVoicePreparation.Prepared
    let config: PiperVoiceConfig
    let sampleRate: Int
    let speakers: Int
    private let library: SherpaOnnxLibrary
    /// The file sherpa-onnx loaded: the model, or its optimised copy.
    let loadedModel: URL
    private let tts: OpaquePointer
    /// Who generates next when more callers want the model than it has slots.
    let turns: FairTurns
    /// How many generate calls this model has made (the tests' window into streaming).
    let generated = Atomic(0)
    /// The model split at its decoder, when the install step made the parts for this ONNX Runtime
    /// and they are loaded: a reply's first sentence is decoded from it in windows
    /// (``stream(_:speaker:speed:turn:_:)``). Loaded in the background from the model's second
    /// reply on (``noteReply()``), so a process that says one thing (the CLI) never pays for it.
    var split: PiperSplitModel? { splitState.withLock { $0.loaded ?? nil } }
    private let splitState = Locked(SplitState())
    private let session: SessionSettings

    private struct SplitState {
        var replies = 0
        /// `nil` until loaded; then the parts, or `nil` inside when there are none to load.
        var loaded: PiperSplitModel??
    }

    init(
        files: PiperVoicePreparation.Prepared, config: PiperVoiceConfig, library: SherpaOnnxLibrary,
        session: SessionSettings = .standard()
    ) throws(PiperError) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var session = session
        var path = files.model.path
        if let optimized = PiperVoicePreparation.currentOptimizedFile(
            for: files.model, onnxRuntime: library.onnxRuntimeVersion)
        {
            path = optimized.path
            session.optimizationLevel = 0
        }
        var (made, reason) = Self.create(path, files: files, config: config, library: library, session: session)
        if made == nil, path != files.model.path {
            // An optimised model this ONNX Runtime refuses: the model itself, optimised as it loads.
            session.optimizationLevel = nil
            path = files.model.path
            (made, reason) = Self.create(path, files: files, config: config, library: library, session: session)
        }
        guard let made else { throw .loadFailed(files.model.path, reason) }
        self.files = files
        self.config = config
        self.library = library
        self.loadedModel = URL(fileURLWithPath: path)
        tts = made
        sampleRate = Int(library.api.OfflineTtsSampleRate(made))
        speakers = Int(library.api.OfflineTtsNumSpeakers(made))
        turns = FairTurns(slots: max(cores, 1))
        self.session = session
    }

    private static func create(
        _ path: String, files: PiperVoicePreparation.Prepared, config: PiperVoiceConfig, library: SherpaOnnxLibrary,
        session: SessionSettings
    ) -> (OpaquePointer?, reason: String) {
        session.withProvider { providerString in
            path.withCString { model in
                files.tokens.path.withCString { tokens in
                    providerString.withCString { provider in
                        var settings = SherpaOnnxOfflineTtsConfig()
                        settings.model.vits.model = model
                        settings.model.vits.tokens = tokens
                        settings.model.vits.noise_scale = Float(config.noiseScale)
                        settings.model.vits.noise_scale_w = Float(config.noiseW)
                        // sherpa-onnx uses this only when a call's speed is exactly 1, else 1 / speed:
                        // callers fold the config's length scale into the speed (see `generate`).
                        settings.model.vits.length_scale = 1
                        settings.model.num_threads = Int32(session.threads)
                        settings.model.provider = provider
                        settings.max_num_sentences = 1
                        var api = library.api
                        var error = [CChar](repeating: 0, count: 512)
                        let made = speak_sherpa_onnx_create(&api, &settings, &error, error.count)
                        return (made, Self.firstLine(of: error))
                    }
                }
            }
        }
    }

    deinit { library.api.DestroyOfflineTts(tts) }

    /// A caught exception's message, to its first line: ONNX Runtime's next lines are its source position.
    private static func firstLine(of message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Audio for one piece of phonemes (Unicode scalars the model knows), in [-1, 1]; `turn` is how
    /// many pieces this caller has had made before (``FairTurns``). `speed` is 1 / the length scale
    /// the model runs with (> 1 is faster); the config's own scale is not applied on top. Pauses stay
    /// as the model makes them (piper-tts shortens none), where sherpa-onnx's default silence scale
    /// (0.2) would cut each pause over 0.2 s to a fifth.
    func generate(_ phonemes: [Int32], speaker: Int, speed: Float, turn: Int = 0) throws(PiperError) -> [Float] {
        guard !phonemes.isEmpty else { return [] }
        return try turns.run(turn: turn) { () throws(PiperError) -> [Float] in
            try generateNow(phonemes, speaker: speaker, speed: speed)
        }
    }

    /// Counts a reply; the second starts loading ``split`` on another thread.
    func noteReply() {
        let second = splitState.withLock { state in
            state.replies += 1
            return state.replies == 2
        }
        if second { startDetachedThread { [self] in _ = loadSplit() } }
    }

    /// ``split``, loaded now if it is not yet. No split (or no ONNX Runtime to run it): `nil`, and
    /// every sentence is decoded whole, as it always could be.
    @discardableResult
    func loadSplit() -> PiperSplitModel? {
        if let loaded = splitState.withLock({ $0.loaded }) { return loaded }
        let split =
            (try? PiperSplitModel.load(for: files.model, runtime: OnnxRuntime.shared(), session: session)) ?? nil
        return splitState.withLock { state in
            if state.loaded == nil { state.loaded = .some(split) }
            return state.loaded ?? nil
        }
    }

    /// One sentence (as ``generate(_:speaker:speed:turn:)``) through ``split``, handed to `body` a
    /// window at a time as it is decoded (`last` on the final window). The audio is the whole
    /// decode's; the noise is drawn anew, as for every sentence.
    func stream(
        _ phonemes: [Int32], speaker: Int, speed: Float, turn: Int = 0,
        _ body: (_ audio: [Float], _ last: Bool) -> Bool
    ) throws(PiperError) {
        guard let split, !phonemes.isEmpty else { return }
        let ids = config.phonemeIDs
        guard let begin = ids["^"], let pad = ids["_"], let end = ids["$"] else {
            throw .invalidConfig(files.config.path, "no ^, _ or $ in phoneme_id_map")
        }
        // As piper-tts makes them: ^ _ then each phoneme and _, then $.
        var sequence = [Int64(begin), Int64(pad)]
        for phoneme in phonemes {
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: phoneme)), let id = ids[scalar] else { continue }
            sequence += [Int64(id), Int64(pad)]
        }
        sequence.append(Int64(end))
        let scales = [Float(config.noiseScale), 1 / max(speed, 1e-3), Float(config.noiseW)]
        try turns.run(turn: turn) { () throws(PiperError) in
            try split.stream(ids: sequence, scales: scales, speaker: speakers > 1 ? speaker : nil, body)
        }
    }

    private func generateNow(_ phonemes: [Int32], speaker: Int, speed: Float) throws(PiperError) -> [Float] {
        generated.add(1, ordering: .relaxed)
        var count = Int32(phonemes.count)
        var api = library.api
        var error = [CChar](repeating: 0, count: 512)
        let audio = phonemes.withUnsafeBufferPointer { scalars in
            withUnsafePointer(to: &count) { lengths in
                "".withCString { text in
                    var settings = SherpaOnnxGenerationConfig()
                    settings.speed = speed
                    settings.silence_scale = 1
                    settings.sid = Int32(speaker)
                    settings.phoneme_codepoints = scalars.baseAddress
                    settings.phoneme_codepoints_lens = lengths
                    settings.phoneme_codepoints_num_sentences = 1
                    return speak_sherpa_onnx_generate(&api, tts, text, &settings, &error, error.count)
                }
            }
        }
        guard let audio else {
            let reason = Self.firstLine(of: error)
            throw .generationFailed(files.model.path, reason.isEmpty ? "no audio" : reason)
        }
        defer { library.api.DestroyOfflineTtsGeneratedAudio(audio) }
        let samples = UnsafeBufferPointer(start: audio.pointee.samples, count: Int(max(audio.pointee.n, 0)))
        return Array(samples)
    }
}
