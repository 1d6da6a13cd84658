/// Why a Piper voice cannot speak: each case reads as one line and says what to do about it.
public enum PiperError: Error, Equatable, CustomStringConvertible, Sendable {
    /// No model by this name in any models directory (the name, the directories searched).
    case modelNotFound(String, searched: [String])
    /// The model has no `.onnx.json` beside it.
    case configMissing(String)
    /// The `.onnx.json` does not describe a Piper voice speak can run.
    case invalidConfig(String, String)
    /// The `.onnx` is not a readable ONNX model (truncated, not ONNX).
    case corruptModel(String, String)
    /// ONNX Runtime (libonnxruntime.so.1) cannot be opened (why).
    case runtimeUnavailable(String)
    /// ONNX Runtime refused the model (its reason, when it gave one).
    case loadFailed(String, String)
    /// ONNX Runtime produced no audio (the model, what went wrong: a damaged model fails a node).
    case generationFailed(String, String)
    /// A voice or model file cannot be written while preparing a voice.
    case cannotWrite(String, String)

    static let installHint = "install it with Scripts/install-piper, or speak voices install FILE.onnx"

    public var description: String {
        switch self {
        case .modelNotFound(let name, let searched):
            "model \(name) is not installed (searched \(searched.joined(separator: ":"))); \(Self.installHint)"
        case .configMissing(let path): "\(path) has no \(path).json beside it; \(Self.installHint)"
        case .invalidConfig(let path, let reason): "invalid Piper voice config \(path): \(reason)"
        case .corruptModel(let path, let reason): "corrupt model \(path): \(reason); \(Self.installHint)"
        case .runtimeUnavailable(let reason):
            "ONNX Runtime is not installed (\(reason)); install it with Scripts/install-piper"
        case .loadFailed(let path, let reason):
            "ONNX Runtime cannot load \(path)\(reason.isEmpty ? "" : " (\(reason))"); \(Self.installHint)"
        case .generationFailed(let path, let reason):
            "ONNX Runtime cannot run \(path) (\(reason)): is it damaged? \(Self.installHint)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
