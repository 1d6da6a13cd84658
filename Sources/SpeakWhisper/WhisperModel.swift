import Foundation
import SpeakKit

/// A whisper.cpp model file (`ggml-<name>.bin`): the ones Scripts/install-whisper converts, or the
/// official files from whisper.cpp's releases (the same format).
public struct WhisperModel: Sendable, Equatable, CustomStringConvertible {
    /// `tiny.en` for `ggml-tiny.en.bin`; the file name without `.bin` for other names.
    public let name: String
    public let path: String

    public init(path: String) {
        self.path = path
        name = Self.name(ofFile: (path as NSString).lastPathComponent)
    }

    public var description: String { "\(name) (\(path))" }

    /// Names tried, in order, when no model is asked for: the multilingual base model (any language,
    /// detected when not given), then the faster English-only tiny model.
    public static let preferredNames = ["base", "tiny.en"]

    /// Where models are looked for, in order: `modelsDirectory` (the `--models` flag or a config
    /// file), each directory of `SPEAK_MODELS` (colon-separated), `$XDG_DATA_HOME/speak/models`
    /// (`~/.local/share/speak/models`), `<executable dir>/../share/speak/models`,
    /// `/usr/local/share/speak/models`, `/usr/share/speak/models`. Duplicates are dropped.
    public static func searchDirectories(
        modelsDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executablePath: String? = Bundle.main.executablePath
    ) -> [String] {
        var directories: [String] = []
        if let modelsDirectory, !modelsDirectory.isEmpty { directories.append(modelsDirectory) }
        directories += EnvironmentSettings(environment: environment).modelDirectories
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            directories.append(data + "/speak/models")
        } else if let home = environment["HOME"], !home.isEmpty {
            directories.append(home + "/.local/share/speak/models")
        }
        if let executablePath {
            let resolved = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath()
            let prefix = resolved.deletingLastPathComponent().deletingLastPathComponent()
            directories.append(prefix.appendingPathComponent("share/speak/models").path)
        }
        directories += ["/usr/local/share/speak/models", "/usr/share/speak/models"]
        var seen: Set<String> = []
        return directories.filter { seen.insert(($0 as NSString).standardizingPath).inserted }
    }

    /// The model named `nameOrPath`: a path (anything with a `/`, or an existing `.bin` file) is taken
    /// as it is; a name such as `tiny.en` or `base` is looked up as `ggml-<name>.bin`, `<name>.bin` or
    /// `<name>` in `directories`, the first directory that has it winning. `nil` takes the first of
    /// ``preferredNames`` found, then any installed model.
    public static func find(
        _ nameOrPath: String? = nil, in directories: [String] = searchDirectories()
    ) throws(WhisperError) -> WhisperModel {
        guard let wanted = nameOrPath, !wanted.isEmpty else {
            for name in preferredNames {
                if let model = try? find(name, in: directories) { return model }
            }
            if let any = installed(in: directories).first { return any }
            throw WhisperError(
                .modelMissing, function: "find",
                message: "no Whisper model installed in \(directories.joined(separator: ", "))"
                    + " (Scripts/install-whisper installs ggml-base.bin and ggml-tiny.en.bin)")
        }
        if wanted.contains("/") || (wanted.hasSuffix(".bin") && isFile(wanted)) {
            guard isFile(wanted) else {
                throw WhisperError(.modelMissing, function: "find", message: "no model file at \(wanted)")
            }
            return WhisperModel(path: wanted)
        }
        for directory in directories {
            for file in ["ggml-\(wanted).bin", "\(wanted).bin", wanted] {
                let path = (directory as NSString).appendingPathComponent(file)
                if isFile(path) { return WhisperModel(path: path) }
            }
        }
        let known = installed(in: directories).map(\.name)
        let hint = known.isEmpty ? "none installed" : "installed: \(known.joined(separator: ", "))"
        throw WhisperError(
            .modelMissing, function: "find",
            message: "no Whisper model '\(wanted)' in \(directories.joined(separator: ", ")) (\(hint))")
    }

    /// Every `ggml-*.bin` in `directories`, by name; where two directories have the same name, the
    /// earlier one's.
    public static func installed(in directories: [String] = searchDirectories()) -> [WhisperModel] {
        var seen: Set<String> = []
        var models: [WhisperModel] = []
        for directory in directories {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for entry in entries.sorted() where entry.hasPrefix("ggml-") && entry.hasSuffix(".bin") {
                let model = WhisperModel(path: (directory as NSString).appendingPathComponent(entry))
                if isFile(model.path), seen.insert(model.name).inserted { models.append(model) }
            }
        }
        return models
    }

    private static func name(ofFile file: String) -> String {
        var name = file
        if name.hasSuffix(".bin") { name.removeLast(4) }
        if name.hasPrefix("ggml-") { name.removeFirst(5) }
        return name
    }

    private static func isFile(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && !directory.boolValue
    }
}

extension WhisperModel {
    /// The hyper-parameters at the head of a ggml Whisper file.
    public struct Header: Sendable, Equatable {
        public var vocabularySize: Int
        public var audioContext: Int
        public var audioState: Int
        public var audioHeads: Int
        public var audioLayers: Int
        public var textContext: Int
        public var textState: Int
        public var textHeads: Int
        public var textLayers: Int
        public var melBands: Int
        public var fileType: Int

        /// English-only models (`.en`) have 51864 tokens; multilingual ones more.
        public var isMultilingual: Bool { vocabularySize >= 51865 }
    }

    /// Reads and checks the file's header, so that a file which is not a Whisper model is refused
    /// with a clear message before whisper.cpp allocates anything from its numbers.
    public func header() throws(WhisperError) -> Header {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw WhisperError(
                exists ? .modelCorrupt : .modelMissing, function: "open",
                message: exists ? "cannot read the model file \(path)" : "no model file at \(path)")
        }
        defer { try? handle.close() }
        let bytes = (try? handle.read(upToCount: 48)) ?? Data()
        func corrupt(_ why: String) -> WhisperError {
            WhisperError(
                .modelCorrupt, function: "whisper_init_from_file_with_params",
                message: "\(path) is not a whisper.cpp model: \(why)")
        }
        guard bytes.count == 48 else { throw corrupt("only \(bytes.count) bytes") }
        let words = (0..<12).map { index in
            bytes.withUnsafeBytes { raw in
                Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self)))
            }
        }
        guard UInt32(truncatingIfNeeded: words[0]) == 0x6767_6D6C else {
            if bytes.starts(with: Array("GGUF".utf8)) {
                throw corrupt("a GGUF file (whisper.cpp reads ggml .bin files)")
            }
            throw corrupt("bad magic (expected 'ggml')")
        }
        let header = Header(
            vocabularySize: words[1], audioContext: words[2], audioState: words[3], audioHeads: words[4],
            audioLayers: words[5], textContext: words[6], textState: words[7], textHeads: words[8],
            textLayers: words[9], melBands: words[10], fileType: words[11])
        let sane =
            (51_000...52_000).contains(header.vocabularySize)
            && header.audioContext == 1500 && header.textContext == 448
            && (1...64).contains(header.audioLayers) && (1...64).contains(header.textLayers)
            && (1...64).contains(header.audioHeads) && (1...64).contains(header.textHeads)
            && (64...8192).contains(header.audioState) && header.audioState == header.textState
            && [80, 128].contains(header.melBands)
        guard sane else { throw corrupt("implausible hyper-parameters \(words[1...11].map(String.init))") }
        return header
    }

    /// ggml's element types: f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0 → (elements, bytes) per block.
    private static let elementBlocks: [Int: (Int, Int)] = [
        0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    ]

    /// Walks the file past the header: mel filters, vocabulary, then each tensor's header and data,
    /// so that a cut or damaged file is refused before whisper.cpp reads it. Cut in the filters it
    /// aborted the process (std::out_of_range); cut before the tensors it loaded a model with none,
    /// which heard nothing in any audio.
    public func checkLayout() throws(WhisperError) {
        guard let file = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw WhisperError(.modelCorrupt, function: "open", message: "cannot read the model file \(path)")
        }
        var offset = 48
        func corrupt(_ why: String) -> WhisperError {
            WhisperError(
                .modelCorrupt, function: "whisper_init_from_file_with_params",
                message: "\(path) is damaged: \(why) (\(file.count) bytes)")
        }
        func skip(_ bytes: Int, _ what: String) throws(WhisperError) {
            guard bytes >= 0, bytes <= file.count - offset else { throw corrupt("it ends inside \(what)") }
            offset += bytes
        }
        func int32(_ what: String) throws(WhisperError) -> Int {
            let at = offset
            try skip(4, what)
            return file.withUnsafeBytes {
                Int(Int32(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: Int32.self)))
            }
        }
        let (bands, bins) = (try int32("the mel filters"), try int32("the mel filters"))
        guard (1...256).contains(bands), (1...1024).contains(bins) else { throw corrupt("implausible mel filters") }
        try skip(bands * bins * 4, "the mel filters")
        let tokens = try int32("the vocabulary")
        guard (0...100_000).contains(tokens) else { throw corrupt("implausible vocabulary size \(tokens)") }
        for _ in 0..<tokens { try skip(try int32("the vocabulary"), "the vocabulary") }
        var tensors = 0
        while offset < file.count {
            let what = "tensor \(tensors + 1)"
            let (dimensions, nameLength, type) = (try int32(what), try int32(what), try int32(what))
            guard (1...4).contains(dimensions), (1...256).contains(nameLength) else { throw corrupt("a bad \(what)") }
            var elements = 1
            for _ in 0..<dimensions {
                let size = try int32(what)
                guard size > 0, elements <= Int(Int32.max) / size else { throw corrupt("a bad \(what)") }
                elements *= size
            }
            try skip(nameLength, what)
            // Another element type ends the walk; whisper.cpp judges the rest.
            guard let (perBlock, bytes) = Self.elementBlocks[type] else { return }
            try skip((elements + perBlock - 1) / perBlock * bytes, what)
            tensors += 1
        }
        guard tensors > 0 else { throw corrupt("it has no tensors") }
    }
}
