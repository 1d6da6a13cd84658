import FoundationEssentials
import SpeakKit

/// Silero VAD (`silero_vad.onnx` from PyPI's silero-vad, MIT) on ONNX Runtime, one session shared
/// by every detector: a session allows concurrent runs, so each ``SileroDetector`` keeps only its
/// own recurrent state. The session has one intra-op thread of its own, not the Piper pool's: it
/// runs beside Whisper, and a 32 ms frame is too small to be worth splitting. It is made when the
/// first detector is (opening ONNX Runtime is the slow part), so a command that never listens live
/// does not pay for it.
public final class SileroModel: Sendable {
    /// What Scripts/install-deps installs in the models directory.
    public static let fileName = "silero_vad.onnx"
    /// The rate the detector is fed at, and the samples of each frame it judges there.
    static let sampleRate = 16000
    static let frameLength = 512
    /// Samples of the previous frame put before each frame: Silero v5 was trained on a frame with
    /// the end of the one before it, as its own wrapper feeds it; the file does not say how many.
    static let contextLength = 64

    public let path: String
    /// The names the file gives its audio, state and (optional) rate inputs, and its two outputs.
    let audioInput: String
    let stateInput: String
    let rateInput: String?
    let probabilityOutput: String
    let stateOutput: String
    /// The state's shape with its batch (the symbolic dimension) at 1, and its size.
    let stateShape: [Int]
    var stateCount: Int { stateShape.reduce(1, *) }
    private let loaded = Locked<Result<OnnxSession, SileroError>?>(nil)

    /// The model at `path`: its inputs and outputs told apart by type and rank as the file declares
    /// them (audio `[batch, samples]`, state `[2, batch, 128]`, rate a scalar int64; probability
    /// `[batch, 1]`, new state of rank 3). Throws a ``SileroError`` for a file that is not one.
    public init(path: String) throws(SileroError) {
        self.path = path
        let signature: (inputs: [ONNXModelFile.Value], outputs: [ONNXModelFile.Value])
        do throws(PiperError) { signature = try ONNXModelFile.signature(of: URL(fileURLWithPath: path)) } catch {
            throw SileroError(path: path, error)
        }
        let float = 1
        let int64 = 7
        func input(_ type: Int, rank: Int) -> ONNXModelFile.Value? {
            signature.inputs.first { $0.elementType == type && $0.dimensions.count == rank }
        }
        func output(rank: Int) -> ONNXModelFile.Value? {
            signature.outputs.first { $0.elementType == float && $0.dimensions.count == rank }
        }
        guard let audio = input(float, rank: 2), let state = input(float, rank: 3),
            let probability = output(rank: 2), let nextState = output(rank: 3),
            signature.inputs.count == (input(int64, rank: 0) == nil ? 2 : 3)
        else {
            let inputs = signature.inputs.map { "\($0.name)\($0.dimensions.map { $0 ?? -1 })" }
            throw SileroError(
                path: path, reason: "not a Silero VAD model (inputs \(inputs.joined(separator: ", ")))")
        }
        audioInput = audio.name
        stateInput = state.name
        rateInput = input(int64, rank: 0)?.name
        probabilityOutput = probability.name
        stateOutput = nextState.name
        stateShape = state.dimensions.map { $0 ?? 1 }
    }

    /// The session, made on the first call; later calls return it (or the same error).
    func session() throws(SileroError) -> OnnxSession {
        try loaded.withLock { loaded in
            if loaded == nil {
                loaded = Result { () throws(SileroError) -> OnnxSession in
                    do throws(PiperError) {
                        return try OnnxRuntime.shared().session(
                            path, optimizationLevel: nil, arena: true, ownThreads: 1)
                    } catch { throw SileroError(path: path, error) }
                }
            }
            return loaded!
        }.get()
    }

    /// The model in the first of `directories` that has one.
    public static func find(in directories: [String]) -> String? {
        directories.lazy.map { URL(fileURLWithPath: $0).appendingPathComponent(fileName).path }
            .first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Detectors on the model at `path`, for ``TranscriptionEngine``; where it cannot be used
    /// (a damaged file, no ONNX Runtime), ``LevelDetector``s, and `fault` is told why, once.
    public static func voiceActivity(at path: String, fault: @escaping @Sendable (SileroError) -> Void)
        -> VoiceActivity
    {
        let model: SileroModel
        do { model = try SileroModel(path: path) } catch {
            fault(error)
            return VoiceActivity(
                name: VoiceActivity.level.name, problem: { "silero: \(error)" }, make: { LevelDetector() })
        }
        let problem = Locked<String?>(nil)
        let make: @Sendable () -> any VoiceActivityDetector = {
            do throws(SileroError) { return try SileroDetector(model: model) } catch {
                let first = problem.withLock { problem in
                    defer { problem = problem ?? "\(error); the level detector instead" }
                    return problem == nil
                }
                if first { fault(error) }
                return LevelDetector()
            }
        }
        return VoiceActivity(name: "silero", problem: { problem.withLock { $0 } }, make: make)
    }

    /// The probability that `audio` (context and frame, -1...1) is speech, and the next state.
    func run(_ audio: [Float], state: [Float]) throws(SileroError) -> (probability: Float, state: [Float]) {
        var inputs = [
            OnnxInput(name: audioInput, shape: [1, audio.count], values: .floats(audio)),
            OnnxInput(name: stateInput, shape: stateShape, values: .floats(state)),
        ]
        if let rateInput {
            inputs.append(OnnxInput(name: rateInput, shape: [], values: .integers([Int64(Self.sampleRate)])))
        }
        let session = try session()
        let outputs: [(values: [Float], shape: [Int])]
        do throws(PiperError) { outputs = try session.run(inputs, outputs: [probabilityOutput, stateOutput]) } catch {
            throw SileroError(path: path, error)
        }
        guard let probability = outputs[0].values.first, outputs[1].values.count == stateCount else {
            throw SileroError(path: path, reason: "outputs of shape \(outputs[0].shape) and \(outputs[1].shape)")
        }
        return (probability, outputs[1].values)
    }
}

/// Speech as Silero VAD hears it, a 512-sample frame (32 ms at 16 kHz) at a time, each judged with
/// what the model remembers of those before it. Unlike ``LevelDetector``, loud noise is not speech.
/// Used from one thread at a time, as a live session is.
public final class SileroDetector: VoiceActivityDetector {
    public let frameLength = SileroModel.frameLength
    private let model: SileroModel
    private var state: [Float]
    /// The end of the previous frame, scaled; zeros at the start.
    private var context: [Float]

    /// A detector on `model`, whose session is made now if it is the first.
    public init(model: SileroModel) throws(SileroError) {
        _ = try model.session()
        self.model = model
        state = [Float](repeating: 0, count: model.stateCount)
        context = [Float](repeating: 0, count: SileroModel.contextLength)
    }

    public func speechProbability(_ frame: ArraySlice<Int16>) throws -> Double {
        var audio = context
        audio.reserveCapacity(context.count + frameLength)
        for sample in frame.prefix(frameLength) { audio.append(Float(sample) / 32768) }
        // A short last frame is padded with silence: the model takes whole frames only.
        audio += [Float](repeating: 0, count: context.count + frameLength - audio.count)
        let (probability, next) = try model.run(audio, state: state)
        state = next
        context = Array(audio.suffix(SileroModel.contextLength))
        return Double(min(max(probability, 0), 1))
    }

    public func reset() {
        state = [Float](repeating: 0, count: model.stateCount)
        context = [Float](repeating: 0, count: SileroModel.contextLength)
    }
}

/// Why Silero VAD cannot be used: the model and one line of reason.
public struct SileroError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, _ error: PiperError) {
        switch error {
        case .corruptModel(_, let reason), .loadFailed(_, let reason), .generationFailed(_, let reason):
            self.init(path: path, reason: reason)
        default: self.init(path: path, reason: error.description)
        }
    }

    public var description: String {
        "Silero VAD model \(path) cannot be used: \(reason) (Scripts/install-deps installs it)"
    }
}
