internal import COnnxRuntime
import FoundationEssentials
import Glibc
import SpeakKit

/// ONNX Runtime's C API, opened with dlopen on first use (install-piper's `libonnxruntime.so.1`).
/// Every Piper session runs on it: whole models and the parts of a split one (``PiperSplitModel``).
/// One environment with one global thread pool serves every session, so sessions that run at once
/// (a split model's two parts, several voices, concurrent replies) share the cores' threads instead
/// of each spinning its own on them. The table and the environment are made once, before this is
/// shared, and only read after.
final class OnnxRuntime: @unchecked Sendable {
    let api: SpeakOnnxRuntime
    let path: String
    let version: String?
    private let environment: OpaquePointer
    private let cpu: OpaquePointer

    /// Where `Scripts/install-piper` puts the library, under an install prefix.
    static let relativePath = "lib/speak/onnxruntime/libonnxruntime.so.1"

    /// `SPEAK_ONNXRUNTIME_LIB` alone when set; else beside the executable's prefix, then /usr/local, /usr.
    static func candidates(environment: EnvironmentSettings = .current) -> [String] {
        if let path = environment.onnxRuntimeLibrary { return [path] }
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let prefixed = bin.appendingPathComponent("../" + relativePath).standardizedFileURL.path
        return [prefixed, "/usr/local/" + relativePath, "/usr/" + relativePath].reduce(into: []) { paths, path in
            if !paths.contains(path) { paths.append(path) }
        }
    }

    private static let loaded = Result { () throws(PiperError) -> OnnxRuntime in try open(.standard()) }

    /// The runtime, opened on the first call; later calls return the same one (or the same error).
    static func shared() throws(PiperError) -> OnnxRuntime { try loaded.get() }

    /// Opens the library and makes the process's environment, its thread pool set by `settings`.
    private static func open(_ settings: SessionSettings) throws(PiperError) -> OnnxRuntime {
        let paths = candidates()
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .runtimeUnavailable("no \(paths.joined(separator: " or "))")
        }
        var api = SpeakOnnxRuntime()
        var error = [CChar](repeating: 0, count: 1024)
        guard speak_onnxruntime_open(path, &api, &error, error.count) == 0 else {
            throw .runtimeUnavailable(
                String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var threading: OpaquePointer?
        try check(api, api.CreateThreadingOptions(&threading), path)
        guard let threading else { throw .runtimeUnavailable("\(path): no threading options") }
        defer { api.ReleaseThreadingOptions(threading) }
        try check(api, api.SetGlobalIntraOpNumThreads(threading, Int32(settings.threads)), path)
        try check(api, api.SetGlobalInterOpNumThreads(threading, 1), path)
        try check(api, api.SetGlobalSpinControl(threading, settings.spinning ? 1 : 0), path)
        var environment: OpaquePointer?
        try check(
            api,
            api.CreateEnvWithGlobalThreadPools(Int32(SpeakOrtLoggingLevelError), "speak", threading, &environment),
            path)
        var cpu: OpaquePointer?
        try check(
            api, api.CreateCpuMemoryInfo(Int32(SpeakOrtArenaAllocator), Int32(SpeakOrtMemTypeDefault), &cpu),
            path)
        guard let environment, let cpu else { throw .runtimeUnavailable("\(path): no environment") }
        return OnnxRuntime(api: api, path: path, environment: environment, cpu: cpu)
    }

    private init(api: SpeakOnnxRuntime, path: String, environment: OpaquePointer, cpu: OpaquePointer) {
        self.api = api
        self.path = path
        self.version = api.version.map { String(cString: $0) }
        self.environment = environment
        self.cpu = cpu
    }

    /// Throws the status's message (and releases it) when `status` is an error.
    static func check(_ api: SpeakOnnxRuntime, _ status: OpaquePointer?, _ path: String) throws(PiperError) {
        guard let status else { return }
        let message = api.GetErrorMessage(status).map { String(cString: $0) } ?? "error"
        api.ReleaseStatus(status)
        throw .generationFailed(path, message.split(separator: "\n").first.map(String.init) ?? message)
    }

    /// A session on the model at `path`, on the environment's thread pool. `optimizationLevel` is
    /// ONNX Runtime's graph optimisation level (0 for a model saved optimised), `nil` for its
    /// default; `arena` keeps ONNX Runtime's CPU arena, which grows to the largest run and never
    /// shrinks, where without it each run's memory is freed after the run. `ownThreads` gives the
    /// session its own intra-op threads (1: the calling thread alone) in place of the shared pool.
    func session(_ path: String, optimizationLevel: Int?, arena: Bool, ownThreads: Int? = nil) throws(PiperError)
        -> OnnxSession
    {
        var options: OpaquePointer?
        try Self.check(api, api.CreateSessionOptions(&options), path)
        guard let options else { throw .loadFailed(path, "no session options") }
        defer { api.ReleaseSessionOptions(options) }
        do throws(PiperError) {
            if let ownThreads {
                try Self.check(api, api.SetIntraOpNumThreads(options, Int32(ownThreads)), path)
                try Self.check(api, api.SetInterOpNumThreads(options, 1), path)
            } else {
                try Self.check(api, api.DisablePerSessionThreads(options), path)
            }
            if let optimizationLevel {
                try Self.check(api, api.SetSessionGraphOptimizationLevel(options, Int32(optimizationLevel)), path)
            }
            if !arena { try Self.check(api, api.DisableCpuMemArena(options), path) }
        } catch {
            throw .loadFailed(path, "\(error)")
        }
        var session: OpaquePointer?
        do throws(PiperError) {
            try Self.check(api, api.CreateSession(environment, path, options, &session), path)
        } catch {
            if case .generationFailed(_, let reason) = error { throw .loadFailed(path, reason) }
            throw error
        }
        guard let session else { throw .loadFailed(path, "no session") }
        return OnnxSession(runtime: self, session: session, path: path)
    }

    /// An ORT value over `buffer` (which must outlive it).
    func tensor(_ buffer: UnsafeMutableRawBufferPointer, shape: [Int64], type: Int32, path: String)
        throws(PiperError) -> OpaquePointer
    {
        var value: OpaquePointer?
        try Self.check(
            api,
            shape.withUnsafeBufferPointer {
                api.CreateTensorWithDataAsOrtValue(
                    cpu, buffer.baseAddress, buffer.count, $0.baseAddress, shape.count, type, &value)
            }, path)
        guard let value else { throw .generationFailed(path, "no tensor") }
        return value
    }
}

/// One input of a run: its name, shape and values.
struct OnnxInput {
    enum Values {
        case floats([Float])
        case integers([Int64])
    }
    var name: String
    var shape: [Int]
    var values: Values
}

/// A session of ``OnnxRuntime`` (runs may be concurrent: ONNX Runtime sessions allow it).
final class OnnxSession: @unchecked Sendable {
    private let runtime: OnnxRuntime
    private let session: OpaquePointer
    let path: String

    fileprivate init(runtime: OnnxRuntime, session: OpaquePointer, path: String) {
        self.runtime = runtime
        self.session = session
        self.path = path
    }

    deinit { runtime.api.ReleaseSession(session) }

    /// Runs the model on `inputs` and returns its float output `output`, with its shape.
    /// `shrinkingArena`: afterwards the CPU arena gives back what this run grew it by.
    func run(_ inputs: [OnnxInput], output: String, shrinkingArena: Bool = false) throws(PiperError)
        -> (values: [Float], shape: [Int])
    {
        try run(inputs, outputs: [output], shrinkingArena: shrinkingArena)[0]
    }

    /// Runs the model on `inputs` and returns its float outputs named `outputs`, in that order.
    func run(_ inputs: [OnnxInput], outputs: [String], shrinkingArena: Bool = false) throws(PiperError)
        -> [(values: [Float], shape: [Int])]
    {
        let api = runtime.api
        var options: OpaquePointer?
        defer { if let options { api.ReleaseRunOptions(options) } }
        if shrinkingArena {
            try OnnxRuntime.check(api, api.CreateRunOptions(&options), path)
            if let options {
                try OnnxRuntime.check(
                    api, api.AddRunConfigEntry(options, "memory.enable_memory_arena_shrinkage", "cpu:0"), path)
            }
        }
        var buffers: [UnsafeMutableRawBufferPointer] = []
        var values: [OpaquePointer?] = []
        defer {
            for value in values { if let value { api.ReleaseValue(value) } }
            for buffer in buffers { buffer.deallocate() }
        }
        for input in inputs {
            let bytes: Int
            let type: Int32
            let buffer: UnsafeMutableRawBufferPointer
            switch input.values {
            case .floats(let floats):
                (bytes, type) = (floats.count * 4, Int32(SpeakOrtFloat))
                buffer = .allocate(byteCount: max(bytes, 1), alignment: 16)
                floats.withUnsafeBytes { buffer.copyMemory(from: $0) }
            case .integers(let integers):
                (bytes, type) = (integers.count * 8, Int32(SpeakOrtInt64))
                buffer = .allocate(byteCount: max(bytes, 1), alignment: 16)
                integers.withUnsafeBytes { buffer.copyMemory(from: $0) }
            }
            buffers.append(buffer)
            let tensor = UnsafeMutableRawBufferPointer(rebasing: buffer[..<bytes])
            values.append(try runtime.tensor(tensor, shape: input.shape.map(Int64.init), type: type, path: path))
        }
        let names = inputs.map { strdup($0.name) }
        let outputNames = outputs.map { strdup($0) }
        defer {
            for name in names + outputNames { free(name) }
        }
        var results = [OpaquePointer?](repeating: nil, count: outputs.count)
        let status = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { inputNames in
            values.withUnsafeBufferPointer { inputValues in
                outputNames.map { UnsafePointer($0) }.withUnsafeBufferPointer { outputNames in
                    results.withUnsafeMutableBufferPointer { results in
                        api.Run(
                            session, options, inputNames.baseAddress, inputValues.baseAddress, inputs.count,
                            outputNames.baseAddress, outputs.count, results.baseAddress)
                    }
                }
            }
        }
        defer { for result in results { if let result { api.ReleaseValue(result) } } }
        try OnnxRuntime.check(api, status, path)
        var floats: [(values: [Float], shape: [Int])] = []
        for result in results {
            guard let result else { throw .generationFailed(path, "no output") }
            floats.append(try self.floats(of: result))
        }
        return floats
    }

    /// A float tensor's values and shape.
    private func floats(of result: OpaquePointer) throws(PiperError) -> (values: [Float], shape: [Int]) {
        let api = runtime.api
        var info: OpaquePointer?
        try OnnxRuntime.check(api, api.GetTensorTypeAndShape(result, &info), path)
        guard let info else { throw .generationFailed(path, "no output shape") }
        defer { api.ReleaseTensorTypeAndShapeInfo(info) }
        var rank = 0
        try OnnxRuntime.check(api, api.GetDimensionsCount(info, &rank), path)
        var dimensions = [Int64](repeating: 0, count: rank)
        try OnnxRuntime.check(api, api.GetDimensions(info, &dimensions, rank), path)
        var data: UnsafeMutableRawPointer?
        try OnnxRuntime.check(api, api.GetTensorMutableData(result, &data), path)
        let shape = dimensions.map { Int($0) }
        let count = shape.reduce(1, *)
        guard let data, count >= 0 else { throw .generationFailed(path, "no output data") }
        return (Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count)), shape)
    }
}
