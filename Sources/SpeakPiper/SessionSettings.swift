import FoundationEssentials
import Glibc

/// The ONNX Runtime session settings a Piper model is loaded with.
///
/// sherpa-onnx's C API sets the intra- and inter-op thread counts itself; other ONNX Runtime
/// session entries reach it only through a provider config file, named in the provider string as
/// `cpu:FILE`, whose `SessionConfig.`-prefixed keys it hands to `AddConfigEntry`. The file is
/// read while the model loads, so it exists only for that call.
struct SessionSettings: Equatable, Sendable {
    /// Intra-op threads, the calling thread included.
    var threads: Int
    /// Whether ONNX Runtime's idle intra-op threads spin (busy-wait) for work between operators,
    /// its default and piper-tts'. Spinning is ~8 % faster on an idle machine; on one whose cores
    /// are busy (other programs) a spinning thread holds a core that the thread it waits for
    /// needs: a paragraph then took 1.63 s spinning against 1.31 s sleeping (load 3, 2 cores).
    var spinning: Bool
    /// ONNX Runtime's graph optimisation level (0 none, 1 basic, 2 extended, 99 all); `nil` for
    /// its default, all. An optimised model (``PiperVoicePreparation/optimizedFile(for:onnxRuntime:)``)
    /// is loaded with 0: its graph is already optimised.
    var optimizationLevel: Int? = nil

    /// The settings for this machine: as many threads as cores (at most 4), spinning;
    /// `SPEAK_PIPER_THREADS` (1–64) and `SPEAK_PIPER_SPINNING` (`1` or `0`) override them.
    static func standard(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SessionSettings {
        var settings = SessionSettings(threads: min(max(cores, 1), 4), spinning: true)
        if let text = environment["SPEAK_PIPER_THREADS"], let threads = Int(text), (1...64).contains(threads) {
            settings.threads = threads
        }
        switch environment["SPEAK_PIPER_SPINNING"] {
        case "1": settings.spinning = true
        case "0": settings.spinning = false
        default: break
        }
        return settings
    }

    /// The provider config file's lines (sherpa-onnx's `key=value` format).
    var configLines: [String] {
        let spin = spinning ? "1" : "0"
        return [
            "SessionConfig.session.intra_op.allow_spinning=\(spin)",
            "SessionConfig.session.inter_op.allow_spinning=\(spin)",
        ] + (optimizationLevel.map { ["GraphOptimizationLevel=\($0)"] } ?? [])
    }

    /// Calls `body` with sherpa-onnx's provider string for these settings: `cpu:FILE`, the file
    /// written for the call and removed after it. If no file can be written, plain `cpu` (ONNX
    /// Runtime's defaults): sherpa-onnx ends the process when a named file cannot be opened.
    func withProvider<Result>(_ body: (String) -> Result) -> Result {
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("speak-onnxruntime-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return body("cpu") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let text = Array((configLines.joined(separator: "\n") + "\n").utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        // sherpa-onnx splits the provider string at its first colon; a path with a colon in it is fine.
        return body(written == text.count ? "cpu:" + path : "cpu")
    }
}
