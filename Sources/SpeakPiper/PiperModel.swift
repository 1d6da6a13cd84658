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
    /// The file ONNX Runtime loaded: the model, its optimised copy, or the front of its split.
    let loadedModel: URL
    private let graph: Graph
    /// Who generates next when more callers want the model than it has slots.
    let turns: FairTurns
    /// How many generate calls this model has made (the tests' window into streaming).
    let generated = Atomic(0)

    /// What runs: the model split at its decoder when the install step made the parts for this
    /// ONNX Runtime (a sentence is its front's latent decoded whole, or in windows:
    /// ``stream(_:speaker:speed:turn:_:)``), else the whole model.
    private enum Graph {
        case whole(OnnxSession)
        case split(PiperSplitModel)
    }

    /// The split parts, when they are what runs.
    var split: PiperSplitModel? {
        if case .split(let split) = graph { split } else { nil }
    }

    init(
        files: PiperVoicePreparation.Prepared, config: PiperVoiceConfig, runtime: OnnxRuntime,
        session: SessionSettings = .standard(), shrinkAbove: Int = PiperSettings().shrinkAbove
    ) throws(PiperError) {
        self.shrinkAbove = shrinkAbove
        self.files = files
        self.config = config
        sampleRate = config.sampleRate
        speakers = config.speakers
        turns = FairTurns(slots: max(ProcessInfo.processInfo.activeProcessorCount, 1))
        // Parts that do not load (damaged, refused): the whole model, as without them.
        if let split = try? PiperSplitModel.load(for: files.model, runtime: runtime, session: session) {
            graph = .split(split)
            loadedModel = PiperSplitModel.partFile("front", for: files.model, onnxRuntime: split.layout.onnxruntime)
            return
        }
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
        loadedModel = URL(fileURLWithPath: path)
        graph = .whole(made)
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

    /// One sentence (as ``generate(_:speaker:speed:turn:)``) through ``split``, handed to `body` a
    /// window at a time as it is decoded (`last` on the final window). The audio is the whole
    /// decode's; the noise is drawn anew, as for every sentence.
    func stream(
        _ phonemes: [Int32], speaker: Int, speed: Float, turn: Int = 0,
        _ body: (_ audio: [Float], _ last: Bool) -> Bool
    ) throws(PiperError) {
        guard let split, !phonemes.isEmpty else { return }
        let (ids, scales) = (try ids(phonemes), scales(speed: speed))
        try turns.run(turn: turn) { () throws(PiperError) in
            try split.stream(ids: ids, scales: scales, speaker: speakers > 1 ? speaker : nil, body)
        }
    }

    /// The ids piper-tts feeds the model for `phonemes`: `^ _`, then each phoneme's id and `_`, then `$`.
    func ids(_ phonemes: [Int32]) throws(PiperError) -> [Int64] {
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
        return sequence
    }

    /// The scales (noise, length, noise w) at `speed`.
    private func scales(speed: Float) -> [Float] {
        [Float(config.noiseScale), 1 / max(speed, 1e-3), Float(config.noiseW)]
    }

    private func generateNow(_ phonemes: [Int32], speaker: Int, speed: Float) throws(PiperError) -> [Float] {
        generated.add(1, ordering: .relaxed)
        let (ids, scales) = (try ids(phonemes), scales(speed: speed))
        let speaker = speakers > 1 ? speaker : nil
        let shrinking = phonemes.count > shrinkAbove
        switch graph {
        case .whole(let whole):
            let inputs = Self.inputs(ids: ids, scales: scales, speaker: speaker)
            return try whole.run(inputs, output: "output", shrinkingArena: shrinking).values
        case .split(let split):
            let latent = try split.latent(ids: ids, scales: scales, speaker: speaker, shrinkingArena: shrinking)
            return try split.decode(latent, window: 0..<latent.frames, speaker: speaker, shrinkingArena: shrinking)
        }
    }

    /// Pieces longer than this give back the arena memory they grew (``PiperSettings/shrinkAbove``).
    let shrinkAbove: Int

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
