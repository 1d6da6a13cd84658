internal import CWhisper
import Foundation
import SpeakKit

/// A loaded model (`whisper_context`): the weights, read once per process and shared by every
/// transcriber of that file. The decoding state lives apart, in ``WhisperStatePool``.
final class WhisperContext: Sendable {
    let model: WhisperModel
    let header: WhisperModel.Header
    /// `whisper_context *`; whisper.cpp only reads it while decoding, so states may share it.
    private let handle: CHandle
    var pointer: OpaquePointer { handle.pointer }
    /// Seconds `whisper_init_from_file_with_params` took.
    let loadSeconds: Double
    /// The spectrogram as faster-whisper makes it, with the model's filters (``LogMel``).
    let logMel: LogMel

    private init(
        model: WhisperModel, header: WhisperModel.Header, pointer: OpaquePointer, loadSeconds: Double, logMel: LogMel
    ) {
        self.model = model
        self.header = header
        handle = CHandle(pointer)
        self.loadSeconds = loadSeconds
        self.logMel = logMel
    }

    deinit { whisper_free(pointer) }

    /// Loaded contexts by model path. The lock is held through a load, so loads are serialised.
    private static let registry = Locked<[String: WhisperContext]>([:])

    /// The process's context for `model`, loading it the first time. Loads are serialised, so two
    /// first callers wait for one load rather than making two. A failed load is not remembered: a
    /// model installed later loads on the next call.
    static func shared(_ model: WhisperModel) throws(WhisperError) -> WhisperContext {
        let key = URL(fileURLWithPath: model.path).resolvingSymlinksInPath().path
        return try registry.withLock { (loaded) throws(WhisperError) -> WhisperContext in
            if let context = loaded[key] { return context }
            let context = try load(model)
            loaded[key] = context
            return context
        }
    }

    private static func load(_ model: WhisperModel) throws(WhisperError) -> WhisperContext {
        let header = try model.header()
        try model.checkLayout()
        let filters = try model.melFilters()
        guard filters.bins == LogMel.bins, filters.bands == header.melBands else {
            throw WhisperError(
                .modelCorrupt, function: "whisper_init_from_file_with_params",
                message: "\(model.path) has \(filters.bands) mel filters of \(filters.bins) bins, "
                    + "not \(header.melBands) of \(LogMel.bins)")
        }
        WhisperLog.install
        _ = WhisperLog.takeLastError()
        var parameters = whisper_context_default_params()
        parameters.use_gpu = false
        // whisper.cpp 1.8.5 turns flash attention on by default; off here: on the CPU it makes the
        // models hear worse and saves no time (Benchmarks/README.md, the transcription benchmark).
        parameters.flash_attn = false
        let start = DispatchTime.now()
        guard let pointer = whisper_init_from_file_with_params(model.path, parameters) else {
            let reason = WhisperLog.takeLastError() ?? "whisper.cpp gave no reason"
            throw WhisperError(
                .modelCorrupt, function: "whisper_init_from_file_with_params",
                message: "cannot load the model \(model.path): \(reason)")
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return WhisperContext(
            model: model, header: header, pointer: pointer, loadSeconds: seconds,
            logMel: LogMel(filters: filters.weights, bands: filters.bands))
    }
}

/// At most `capacity` decoding states (`whisper_state`, tens of MB each: KV caches and compute
/// buffers) for one context at once, each made for one call; a caller beyond that waits for one to
/// be freed. Memory is bounded by the capacity however many callers there are.
typealias WhisperStatePool = BoundedPool<CHandle, WhisperError>

extension BoundedPool where Item == CHandle, Failure == WhisperError {
    convenience init(context: WhisperContext, capacity: Int) {
        self.init(
            capacity: capacity,
            make: { () throws(WhisperError) -> CHandle in
                guard let state = whisper_init_state(context.pointer) else {
                    let reason = WhisperLog.takeLastError() ?? "out of memory?"
                    throw WhisperError(
                        .failed, function: "whisper_init_state", message: "cannot make a decoding state: \(reason)")
                }
                return CHandle(state)
            },
            discard: { whisper_free_state($0.pointer) })
    }
}

extension BoundedPool.Lease where Item == CHandle {
    /// The decoding state leased.
    var state: OpaquePointer { item.pointer }
}
