import FoundationEssentials
import Glibc
import SpeakKit

/// Makes a standard Piper voice (`NAME.onnx` + `NAME.onnx.json`) runnable by sherpa-onnx, never
/// touching the original: a copy of the model with sherpa-onnx's metadata appended
/// (``ONNXModelFile``), the config beside it and `NAME.tokens.txt` from its `phoneme_id_map`.
/// `Scripts/install-piper` does the same for the `joe` voice.
public enum PiperVoicePreparation {
    /// The files of a prepared voice.
    public struct Prepared: Sendable, Equatable {
        public var model: URL
        public var config: URL
        public var tokens: URL
    }

    /// `NAME.onnx.json` beside `NAME.onnx`.
    public static func configFile(for model: URL) -> URL { URL(fileURLWithPath: model.path + ".json") }

    /// `NAME.tokens.txt` beside `NAME.onnx`.
    public static func tokensFile(for model: URL) -> URL {
        model.deletingPathExtension().appendingPathExtension("tokens.txt")
    }

    /// `NAME.optimized-onnxruntime-VERSION.onnx` beside `NAME.onnx`: the model as ONNX Runtime
    /// `version` optimises it (graph optimisation level "extended", which is not tied to the
    /// processor), saved by `Scripts/install-piper`. Loading it skips that optimisation, about two
    /// thirds of the session's set-up; only the ONNX Runtime that made it may load it so.
    public static func optimizedFile(for model: URL, onnxRuntime version: String) -> URL {
        model.deletingPathExtension().appendingPathExtension("optimized-onnxruntime-\(version).onnx")
    }

    /// The optimised model to load instead of `model` on ONNX Runtime `version`, if there is one
    /// that is current: no older than the model, and carrying sherpa-onnx's metadata (sherpa-onnx
    /// ends the process on a model without it).
    static func currentOptimizedFile(for model: URL, onnxRuntime version: String?) -> URL? {
        guard let version else { return nil }
        let optimized = optimizedFile(for: model, onnxRuntime: version)
        func modified(_ url: URL) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        }
        guard let made = modified(optimized), let source = modified(model), made >= source,
            let metadata = try? ONNXModelFile.metadata(of: optimized), metadata["sample_rate"] != nil,
            metadata["comment"] != nil
        else { return nil }
        return optimized
    }

    /// The model's files when it is ready for sherpa-onnx as it is (metadata and tokens in place),
    /// else `nil`. Throws when the model or its config is missing or damaged.
    public static func preparedFiles(of model: URL) throws(PiperError) -> Prepared? {
        let config = configFile(for: model)
        guard FileManager.default.fileExists(atPath: config.path) else { throw .configMissing(model.path) }
        let voice = try PiperVoiceConfig(contentsOf: config)
        let metadata = try ONNXModelFile.metadata(of: model)
        let tokens = tokensFile(for: model)
        guard metadata["sample_rate"] != nil, metadata["comment"] != nil,
            let written = try? String(contentsOf: tokens, encoding: .utf8), written == voice.tokens
        else { return nil }
        return Prepared(model: model, config: config, tokens: tokens)
    }

    /// Prepares `model` into `directory` (created if need be) and returns the prepared files.
    /// A model that is already prepared there is left as it is. Files are written under a
    /// temporary name and renamed into place. With `split`, the prepared model is also split at
    /// its decoder for first-sentence streaming (``PiperModelSplitter``) when the tools for it are
    /// installed; a voice that cannot be split still speaks, each sentence decoded whole.
    @discardableResult
    public static func prepare(model: URL, into directory: URL, split: Bool = true) throws(PiperError) -> Prepared {
        let prepared = try prepareFiles(model: model, into: directory)
        if split { PiperModelSplitter.split(prepared.model) }
        return prepared
    }

    private static func prepareFiles(model: URL, into directory: URL) throws(PiperError) -> Prepared {
        let model = model.standardizedFileURL
        let config = configFile(for: model)
        guard FileManager.default.fileExists(atPath: config.path) else { throw .configMissing(model.path) }
        let voice = try PiperVoiceConfig(contentsOf: config)
        let metadata = try ONNXModelFile.metadata(of: model)
        let target = directory.appendingPathComponent(model.lastPathComponent).standardizedFileURL
        let prepared = Prepared(model: target, config: configFile(for: target), tokens: tokensFile(for: target))
        do { try FileSystem.makeDirectories(directory.path) } catch {
            throw .cannotWrite(directory.path, error.description)
        }
        let missing = voice.onnxMetadata.filter { metadata[$0.0] == nil }
        if target != model, FileSystem.exists(target.path), try !holdsPrepared(model, config: config, at: prepared) {
            // Another voice's model by the same name: copying over it would make that voice speak with this one.
            throw .cannotWrite(
                target.path,
                "the models directory already holds a different \(model.lastPathComponent); rename this model "
                    + "and its .onnx.json, or remove the installed one first")
        }
        if target != model {
            try write(prepared.model) { append in
                let source = try SystemCall.retrying("open") { open(model.path, O_RDONLY | O_CLOEXEC) }
                defer { close(source) }
                let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 22, alignment: 1)
                defer { block.deallocate() }
                while true {
                    let count = try SystemCall.retrying("read") { read(source, block.baseAddress, block.count) }
                    if count == 0 { break }
                    try append(UnsafeRawBufferPointer(rebasing: block[..<count]))
                }
                try ONNXModelFile.metadataEntries(missing).withUnsafeBytes { try append($0) }
            }
            let configBytes = try? FileSystem.contents(of: config.path)
            guard let configBytes else { throw .configMissing(model.path) }
            try write(prepared.config) { append in try configBytes.withUnsafeBytes { try append($0) } }
        } else if !missing.isEmpty {
            // Preparing in place would change the user's file: refuse, as the caller asked for it here.
            throw .cannotWrite(target.path, "the model would be changed in place; prepare it into another directory")
        }
        try write(prepared.tokens) { append in try Array(voice.tokens.utf8).withUnsafeBytes { try append($0) } }
        return prepared
    }

    /// Whether `prepared` was made from `model` and `config`: the same config, and a model that
    /// starts with the original's bytes (preparing appends sherpa-onnx's metadata, nothing else).
    private static func holdsPrepared(_ model: URL, config: URL, at prepared: Prepared) throws(PiperError) -> Bool {
        guard let source = try? FileSystem.contents(of: config.path),
            let installed = try? FileSystem.contents(of: prepared.config.path), source == installed
        else { return false }
        do {
            let original = try SystemCall.retrying("open") { open(model.path, O_RDONLY | O_CLOEXEC) }
            defer { close(original) }
            let copy = try SystemCall.retrying("open") { open(prepared.model.path, O_RDONLY | O_CLOEXEC) }
            defer { close(copy) }
            let size = 1 << 22
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * size, alignment: 1)
            defer { block.deallocate() }
            let ours = UnsafeMutableRawBufferPointer(rebasing: block[..<size])
            let theirs = UnsafeMutableRawBufferPointer(rebasing: block[size...])
            while true {
                let count = try SystemCall.readFully("read", into: ours) { read(original, $0, $1) }
                if count == 0 { return true }
                let part = UnsafeMutableRawBufferPointer(rebasing: theirs[..<count])
                let matched = try SystemCall.readFully("read", into: part) { read(copy, $0, $1) }
                guard matched == count, memcmp(ours.baseAddress!, theirs.baseAddress!, count) == 0 else { return false }
            }
        } catch {
            throw .cannotWrite(prepared.model.path, String(describing: error))
        }
    }

    /// The Piper voices (`*.onnx` with an `.onnx.json` beside) in `directory`, or `directory`
    /// itself when it is a model file.
    public static func models(at path: URL) -> [URL] {
        var status = stat()
        guard stat(path.path, &status) == 0 else { return [] }
        guard status.st_mode & S_IFMT == S_IFDIR else { return [path] }
        let names = FileSystem.names(in: path.path) ?? []
        return names.filter { $0.hasSuffix(".onnx") && FileSystem.exists(path.path + "/" + $0 + ".json") }.sorted()
            .map { path.appendingPathComponent($0) }
    }

    /// Opens a file that this call makes: never one that is there already, nor through a symbolic
    /// link planted at its name (the models directory may be shared). A file left at the name (an
    /// earlier install by a process of the same id that died) is removed first, once: a link is
    /// removed, not followed.
    private static func createNew(_ path: String) throws(SystemCallError) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        do {
            return try SystemCall.retrying("open") { open(path, flags, 0o644) }
        } catch let error where error.code == EEXIST {
            _ = try SystemCall.retrying("unlink") { unlink(path) }
            return try SystemCall.retrying("open") { open(path, flags, 0o644) }
        }
    }

    /// Writes `url` whole or not at all: `body` appends to a temporary file, renamed into place.
    private static func write(
        _ url: URL, _ body: (_ append: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws(PiperError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid())")
        do {
            let file = try createNew(temporary.path)
            var closed = false
            defer { if !closed { close(file) } }
            try body { bytes in
                try SystemCall.writeAll("write", bytes) { pointer, count, _ in Glibc.write(file, pointer, count) }
            }
            closed = true
            // Never retried: after EINTR the descriptor is gone already.
            if close(file) != 0 { throw SystemCallError("close") }
            try SystemCall.retrying("rename") { rename(temporary.path, url.path) }
        } catch {
            unlink(temporary.path)
            throw .cannotWrite(url.path, String(describing: error))
        }
    }
}
