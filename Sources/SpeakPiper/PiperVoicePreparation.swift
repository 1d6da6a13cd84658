import FoundationEssentials
import Glibc
import SpeakKit

/// A standard Piper voice (`NAME.onnx` + `NAME.onnx.json`) as speak runs it: the model as it is
/// shipped, or its optimised copy for this ONNX Runtime, and the parts it is split into for
/// first-sentence streaming. `speak voices install` copies a voice into a models directory and
/// splits it there; `Scripts/install-piper` does the same for the `joe` voice.
public enum PiperVoicePreparation {
    /// A voice's files: the model and its config beside it.
    public struct Prepared: Sendable, Equatable {
        public var model: URL
        public var config: URL
    }

    /// `NAME.onnx.json` beside `NAME.onnx`.
    public static func configFile(for model: URL) -> URL { URL(fileURLWithPath: model.path + ".json") }

    /// `NAME.optimized-onnxruntime-VERSION.onnx` beside `NAME.onnx`: the model as ONNX Runtime
    /// `version` optimises it (graph optimisation level "extended", which is not tied to the
    /// processor), saved by `Scripts/install-piper`. Loading it skips that optimisation, most of
    /// the session's set-up; only the ONNX Runtime that made it may load it so.
    public static func optimizedFile(for model: URL, onnxRuntime version: String) -> URL {
        model.deletingPathExtension().appendingPathExtension("optimized-onnxruntime-\(version).onnx")
    }

    /// `NAME.optimized-onnxruntime-VERSION.onnx.source` beside the optimised copy: the size and
    /// modification time of the model it was made from (``sourceStamp(of:)``), written with it.
    public static func optimizedSourceFile(for model: URL, onnxRuntime version: String) -> URL {
        URL(fileURLWithPath: optimizedFile(for: model, onnxRuntime: version).path + ".source")
    }

    /// `SIZE SECONDS` of `model` (its size in bytes and whole seconds of its modification time, as
    /// `stat -c '%s %Y'` prints them), or `nil` when it cannot be read.
    public static func sourceStamp(of model: URL) -> String? {
        var status = stat()
        guard stat(model.path, &status) == 0 else { return nil }
        return "\(status.st_size) \(status.st_mtim.tv_sec)"
    }

    /// The optimised model to load instead of `model` on ONNX Runtime `version`, if there is one
    /// made from this very model: its source stamp names the model's size and modification time as
    /// they are now. A copy of another model by the same name, or of this one before it changed,
    /// would speak with other weights; a copy with no stamp is not trusted either.
    static func currentOptimizedFile(for model: URL, onnxRuntime version: String?) -> URL? {
        guard let version else { return nil }
        let optimized = optimizedFile(for: model, onnxRuntime: version)
        guard FileSystem.exists(optimized.path), let stamp = sourceStamp(of: model),
            let recorded = try? FileSystem.contents(
                of: optimizedSourceFile(for: model, onnxRuntime: version).path, maximumBytes: 100),
            String(decoding: recorded, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                == stamp
        else { return nil }
        return optimized
    }

    /// The files of the voice whose model is `model`, checked: its config is beside it and the
    /// model is a whole ONNX file (``ONNXModelFile``). Throws when either is missing or damaged.
    public static func files(of model: URL) throws(PiperError) -> Prepared {
        let config = configFile(for: model)
        guard FileManager.default.fileExists(atPath: config.path) else { throw .configMissing(model.path) }
        _ = try ONNXModelFile.metadata(of: model)
        return Prepared(model: model, config: config)
    }

    /// Copies the voice of `model` into `directory` (created if need be), as it is, and returns the
    /// copy's files. A copy of the same voice already there is left as it is (so its optimised copy
    /// and parts stay current); another model by the same name is refused. Files are written under
    /// a temporary name and renamed into place. With `split`, the model is also saved optimised for
    /// this ONNX Runtime and split at its decoder for first-sentence streaming (``PiperModelSplitter``)
    /// when the tools for it are installed; a voice without them still speaks, loading the model
    /// itself and decoding each sentence whole.
    @discardableResult
    public static func prepare(model: URL, into directory: URL, split: Bool = true) throws(PiperError) -> Prepared {
        let prepared = try copy(model: model, into: directory)
        if split {
            PiperModelSplitter.optimize(prepared.model)
            PiperModelSplitter.split(prepared.model)
        }
        return prepared
    }

    /// Takes a voice that ``prepare(model:into:split:)`` copied out of its models directory again:
    /// the model, its config, and what was made from it (optimised copies and their stamps, the
    /// split parts and their layout, for any ONNX Runtime).
    public static func remove(_ voice: Prepared) {
        let directory = voice.model.deletingLastPathComponent().path
        let base = voice.model.deletingPathExtension().lastPathComponent + "."
        let made = (FileSystem.names(in: directory) ?? []).filter { name in
            name.hasPrefix(base)
                && (name == base + "split.json" || name.dropFirst(base.count).contains("optimized-onnxruntime-"))
        }
        for path in [voice.model.path, voice.config.path] + made.map({ directory + "/" + $0 }) { unlink(path) }
    }

    private static func copy(model: URL, into directory: URL) throws(PiperError) -> Prepared {
        let model = model.standardizedFileURL
        let source = try files(of: model)
        _ = try PiperVoiceConfig(contentsOf: source.config)
        let target = directory.appendingPathComponent(model.lastPathComponent).standardizedFileURL
        let copy = Prepared(model: target, config: configFile(for: target))
        guard target != model else { return copy }
        do { try FileSystem.makeDirectories(directory.path) } catch {
            throw .cannotWrite(directory.path, error.description)
        }
        let installed = if FileSystem.exists(target.path) { try holding(source, at: copy) } else { Holding.absent }
        switch installed {
        case .same: return copy
        case .different:
            // Another voice's model by the same name: copying over it would make that voice speak with this one.
            throw .cannotWrite(
                target.path,
                "the models directory already holds a different \(model.lastPathComponent); rename this model "
                    + "and its .onnx.json, or remove the installed one first")
        case .extended:
            // An earlier speak's copy, with sherpa-onnx's metadata and tokens: replaced as shipped.
            unlink(target.deletingPathExtension().appendingPathExtension("tokens.txt").path)
        case .absent: break
        }
        try write(copy.model) { append in
            let file = try SystemCall.retrying("open") { open(model.path, O_RDONLY | O_CLOEXEC) }
            defer { close(file) }
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 22, alignment: 1)
            defer { block.deallocate() }
            while true {
                let count = try SystemCall.retrying("read") { read(file, block.baseAddress, block.count) }
                if count == 0 { break }
                try append(UnsafeRawBufferPointer(rebasing: block[..<count]))
            }
        }
        let configBytes = try? FileSystem.contents(of: source.config.path)
        guard let configBytes else { throw .configMissing(model.path) }
        try write(copy.config) { append in try configBytes.withUnsafeBytes { try append($0) } }
        return copy
    }

    /// How an installed copy stands to the voice it would be: not there; the same config and model;
    /// the same config and the model with more after it (an earlier speak appended sherpa-onnx's
    /// metadata); or another voice.
    private enum Holding { case absent, same, extended, different }

    private static func holding(_ voice: Prepared, at installed: Prepared) throws(PiperError) -> Holding {
        guard let source = try? FileSystem.contents(of: voice.config.path),
            let copied = try? FileSystem.contents(of: installed.config.path), source == copied
        else { return .different }
        do {
            let original = try SystemCall.retrying("open") { open(voice.model.path, O_RDONLY | O_CLOEXEC) }
            defer { close(original) }
            let copy = try SystemCall.retrying("open") { open(installed.model.path, O_RDONLY | O_CLOEXEC) }
            defer { close(copy) }
            let size = 1 << 22
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * size, alignment: 1)
            defer { block.deallocate() }
            let ours = UnsafeMutableRawBufferPointer(rebasing: block[..<size])
            let theirs = UnsafeMutableRawBufferPointer(rebasing: block[size...])
            while true {
                let count = try SystemCall.readFully("read", into: ours) { read(original, $0, $1) }
                if count == 0 {
                    let more = try SystemCall.readFully("read", into: theirs) { read(copy, $0, $1) }
                    return more == 0 ? .same : .extended
                }
                let part = UnsafeMutableRawBufferPointer(rebasing: theirs[..<count])
                let matched = try SystemCall.readFully("read", into: part) { read(copy, $0, $1) }
                guard matched == count, memcmp(ours.baseAddress!, theirs.baseAddress!, count) == 0 else {
                    return .different
                }
            }
        } catch {
            throw .cannotWrite(installed.model.path, String(describing: error))
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
    static func write(
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
