internal import CSherpaOnnx
import FoundationEssentials
import Glibc

/// libsherpa-onnx-c-api.so (and the ONNX Runtime it needs), opened on first use only: a process
/// that never speaks with a Piper voice never maps them.
/// The table of C function pointers is written once, before this is shared, and only read after.
final class SherpaOnnxLibrary: @unchecked Sendable {
    let api: SpeakSherpaOnnx
    let path: String

    /// Where `Scripts/install-piper` puts the library, under an install prefix.
    static let relativePath = "lib/speak/sherpa-onnx/sherpa_onnx/lib/libsherpa-onnx-c-api.so"

    /// `SPEAK_SHERPA_ONNX_LIB` alone when set; else beside the executable's prefix, then /usr/local.
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let path = environment["SPEAK_SHERPA_ONNX_LIB"], !path.isEmpty { return [path] }
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let prefixed = bin.appendingPathComponent("../" + relativePath).standardizedFileURL.path
        return [prefixed, "/usr/local/" + relativePath, "/usr/" + relativePath].reduce(into: []) { paths, path in
            if !paths.contains(path) { paths.append(path) }
        }
    }

    private static let loaded = Result { () throws(PiperError) -> SherpaOnnxLibrary in try open() }

    /// The library, opened on the first call; later calls return the same one (or the same error).
    static func shared() throws(PiperError) -> SherpaOnnxLibrary { try loaded.get() }

    private init(api: SpeakSherpaOnnx, path: String) {
        self.api = api
        self.path = path
    }

    private static func open() throws(PiperError) -> SherpaOnnxLibrary {
        let paths = candidates()
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .runtimeUnavailable("no \(paths.joined(separator: " or "))")
        }
        var api = SpeakSherpaOnnx()
        var error = [CChar](repeating: 0, count: 1024)
        let status = speak_sherpa_onnx_open(path, &api, &error, error.count)
        guard status == 0 else {
            throw .runtimeUnavailable(
                String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return SherpaOnnxLibrary(api: api, path: path)
    }

    /// The version of the ONNX Runtime under it, e.g. `1.32.0`; `nil` if it cannot be told.
    var onnxRuntimeVersion: String? { api.onnxruntime_version.map { String(cString: $0) } }

    /// sherpa-onnx's version, e.g. `2.0.1`.
    var version: String { api.GetVersionStr().map { String(cString: $0) } ?? "?" }
}
