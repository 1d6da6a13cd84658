import FoundationEssentials
import Glibc
import SpeakKit
import Synchronization

/// One Piper model loaded into ONNX Runtime, shared by every voice and request that uses it.
///
/// Runs may be concurrent on one session (ONNX Runtime allows it). Concurrent calls are bounded to
/// the number of cores, so memory does not grow with callers, and callers take turns piece by
/// piece (``FairTurns``), so a short request is not queued behind long ones.
final class PiperModel: Sendable {
    let files: PiperVoicePreparation.Prepared
    let config: PiperVoiceConfig
    let sampleRate: Int
    let speakers: Int
    /// The file ONNX Runtime loaded: the model, or its optimised copy.
    let loadedModel: URL
    private let whole: OnnxSession
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
    private let runtime: OnnxRuntime

    private struct SplitState {
        var replies = 0
        /// `nil` until loaded; then the parts, or `nil` inside when there are none to load.
        var loaded: PiperSplitModel??
    }

    init(
        files: PiperVoicePreparation.Prepared, config: PiperVoiceConfig, runtime: OnnxRuntime,
        session: SessionSettings = .standard()
    ) throws(PiperError) {
        var path = files.model.path
        var level: Int? = nil
        if let optimized = PiperVoicePreparation.currentOptimizedFile(for: files.model, onnxRuntime: runtime.version) {
            (path, level) = (optimized.path, 0)
        }
        var made: OnnxSession
        do {
            made = try runtime.session(path, optimizationLevel: level, arena: session.arena)
        } catch {
            // An optimised model this ONNX Runtime refuses: the model itself, optimised as it loads.
            guard path != files.model.path else { throw error }
            path = files.model.path
            made = try runtime.session(path, optimizationLevel: nil, arena: session.arena)
        }
        self.files = files
        self.config = config
        self.runtime = runtime
        self.loadedModel = URL(fileURLWithPath: path)
        whole = made
        sampleRate = config.sampleRate
        speakers = config.speakers
        turns = FairTurns(slots: max(ProcessInfo.processInfo.activeProcessorCount, 1))
        self.session = session
    }

    /// Audio for one piece of phonemes (Unicode scalars the model knows), in [-1, 1]; `turn` is how
    /// many pieces this caller has had made before (``FairTurns``). `speed` is 1 / the length scale
    /// the model runs with (> 1 is faster); the config's own scale is not applied on top.
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
        let split = (try? PiperSplitModel.load(for: files.model, runtime: runtime, session: session)) ?? nil
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
        let (sequence, scales) = try inputs(phonemes, speed: speed)
        try turns.run(turn: turn) { () throws(PiperError) in
            try split.stream(ids: sequence, scales: scales, speaker: speakers > 1 ? speaker : nil, body)
        }
    }

    /// The model's inputs for `phonemes` as piper-tts makes them: the ids `^ _` then each
    /// phoneme's id and `_`, then `$`; and the scales (noise, length, noise w).
    private func inputs(_ phonemes: [Int32], speed: Float) throws(PiperError) -> (ids: [Int64], scales: [Float]) {
        let ids = config.phonemeIDs
        guard let begin = ids["^"], let pad = ids["_"], let end = ids["$"] else {
            throw .invalidConfig(files.config.path, "no ^, _ or $ in phoneme_id_map")
        }
        var sequence = [Int64(begin), Int64(pad)]
        for phoneme in phonemes {
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: phoneme)), let id = ids[scalar] else { continue }
            sequence += [Int64(id), Int64(pad)]
        }
        sequence.append(Int64(end))
        return (sequence, [Float(config.noiseScale), 1 / max(speed, 1e-3), Float(config.noiseW)])
    }

    private func generateNow(_ phonemes: [Int32], speaker: Int, speed: Float) throws(PiperError) -> [Float] {
        generated.add(1, ordering: .relaxed)
        let (ids, scales) = try inputs(phonemes, speed: speed)
        let inputs = Self.inputs(ids: ids, scales: scales, speaker: speakers > 1 ? speaker : nil)
        let shrinking = phonemes.count > Self.shrinkAbove
        return try whole.run(inputs, output: "output", shrinkingArena: shrinking).values
    }

    /// Pieces longer than this give back the arena memory they grew: run-on text (every piece near
    /// the piece limit) would otherwise leave the process hundreds of MB larger for good.
    /// `SPEAK_PIPER_SHRINK_ABOVE` (0–10000 phoneme code points) sets another.
    static let shrinkAbove =
        Int(ProcessInfo.processInfo.environment["SPEAK_PIPER_SHRINK_ABOVE"] ?? "")
        .flatMap { (0...10000).contains($0) ? $0 : nil } ?? 100

    /// A Piper model's inputs (the whole model's, and its front's when split): the ids, their
    /// count, the scales, and the speaker of a multi-speaker model.
    static func inputs(ids: [Int64], scales: [Float], speaker: Int?) -> [OnnxInput] {
        var inputs = [
            OnnxInput(name: "input", shape: [1, ids.count], values: .integers(ids)),
            OnnxInput(name: "input_lengths", shape: [1], values: .integers([Int64(ids.count)])),
            OnnxInput(name: "scales", shape: [3], values: .floats(scales)),
        ]
        if let speaker { inputs.append(OnnxInput(name: "sid", shape: [1], values: .integers([Int64(speaker)]))) }
        return inputs
    }
}
