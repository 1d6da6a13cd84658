import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// `speak voices install` given voices it must refuse, and the files it writes on the way.
@Suite("Piper voices install refusals", .serialized)
final class InstallTests {
    let scratch: URL
    /// The joe model as Piper ships it, which every case below links to with a config of its own.
    let model: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-install-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        model = try Joe.original(named: "original.onnx", in: scratch)
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    var full: String { Command.products.appendingPathComponent("speak-full").path }

    /// Each config change, and what the one-line refusal says.
    static let refusals: [(change: String, edit: @Sendable (inout [String: Any]) -> Void, says: String)] = [
        ("sample rate 4 kHz", { $0["audio"] = ["sample_rate": 4000] }, "sample_rate 4000 is outside 8000–48000 Hz"),
        ("sample rate 96 kHz", { $0["audio"] = ["sample_rate": 96000] }, "sample_rate 96000 is outside 8000–48000 Hz"),
        ("no speakers", { $0["num_speakers"] = 0 }, "num_speakers 0 is outside 1–10000"),
        ("10,001 speakers", { $0["num_speakers"] = 10001 }, "num_speakers 10001 is outside 1–10000"),
        ("a phoneme id past 65,535", { InstallTests.addPhoneme(&$0, id: 65536) }, "has id 65536, outside 0–65535"),
        ("a negative phoneme id", { InstallTests.addPhoneme(&$0, id: -1) }, "has id -1, outside 0–65535"),
        ("a speaker named as a path", { $0["speaker_id_map"] = ["../../etc/passwd": 0] }, "is not a plain name"),
        ("a speaker name with a slash", { $0["speaker_id_map"] = ["a/b": 0] }, "is not a plain name"),
    ]

    static func addPhoneme(_ config: inout [String: Any], id: Int) {
        var map = config["phoneme_id_map"] as? [String: Any] ?? [:]
        map["ʘ"] = [id]
        config["phoneme_id_map"] = map
    }

    @Test(
        "voices install refuses values outside sane ranges in one line, exit 65, installing nothing", arguments: 0..<8)
    func refuses(_ index: Int) throws {
        let (change, edit, says) = Self.refusals[index]
        let incoming = scratch.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let voice = incoming.appendingPathComponent("voice.onnx")
        try FileManager.default.createSymbolicLink(at: voice, withDestinationURL: model)
        var config = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: PiperVoicePreparation.configFile(for: model)))
                as? [String: Any])
        edit(&config)
        try JSONSerialization.data(withJSONObject: config).write(to: PiperVoicePreparation.configFile(for: voice))
        let data = scratch.appendingPathComponent("data")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = data.path
        let result = try Command.run([full, "voices", "install", voice.path], environment: environment)
        #expect(result.status == 65, "\(change): \(result.stderr)")
        #expect(result.stderr.hasPrefix("speak: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(change)")
        #expect(result.stderr.contains(says), "\(change): \(result.stderr)")
        let installed = (try? FileManager.default.contentsOfDirectory(atPath: data.path + "/speak/models")) ?? []
        #expect(installed.isEmpty, "\(change): \(installed)")
    }

    @Test("installing a voice never writes through a link planted at its temporary file's name")
    func temporaryFileIsNew() throws {
        let models = scratch.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let victim = scratch.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        // The name the model's copy is written under before it is renamed into place.
        let planted = models.appendingPathComponent(".original.onnx.\(getpid())")
        try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: victim)

        let prepared = try PiperVoicePreparation.prepare(model: model, into: models, split: false)
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        let type = try FileManager.default.attributesOfItem(atPath: prepared.model.path)[.type] as? FileAttributeType
        #expect(type == .typeRegular)
        #expect(try Data(contentsOf: prepared.model) == Data(contentsOf: model))
        #expect(!FileManager.default.fileExists(atPath: planted.path))
    }

    @Test("a voice is installed as shipped; again, it is left as it is; over an earlier speak's copy, as shipped")
    func installedAsShipped() throws {
        let models = scratch.appendingPathComponent("models")
        let installed = try PiperVoicePreparation.prepare(model: model, into: models, split: false)
        #expect(try Data(contentsOf: installed.model) == Data(contentsOf: model))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: models.path).sorted() == [
                "original.onnx", "original.onnx.json",
            ])
        // Not rewritten, so that an optimised copy or the parts made from it stay current.
        let made = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
        try FileManager.default.setAttributes([.modificationDate: made], ofItemAtPath: installed.model.path)
        try PiperVoicePreparation.prepare(model: model, into: models, split: false)
        let kept = try FileManager.default.attributesOfItem(atPath: installed.model.path)[.modificationDate] as? Date
        #expect(kept == made)

        // An earlier speak appended sherpa-onnx's metadata (field 14: key "k", value "v") and wrote tokens.
        let file = try FileHandle(forWritingTo: installed.model)
        try file.seekToEnd()
        try file.write(contentsOf: Data([0x72, 0x06, 0x0A, 0x01, 0x6B, 0x12, 0x01, 0x76]))
        try file.close()
        #expect(try ONNXModelFile.metadata(of: installed.model)["k"] == "v")
        try Data("_ 0\n".utf8).write(to: models.appendingPathComponent("original.tokens.txt"))
        try PiperVoicePreparation.prepare(model: model, into: models, split: false)
        #expect(try Data(contentsOf: installed.model) == Data(contentsOf: model))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: models.path).sorted() == [
                "original.onnx", "original.onnx.json",
            ])
    }

    @Test(
        "with install-piper's tools, an installed voice gets its optimised copy, stamped, which loads",
        .enabled(if: PiperModelSplitter.toolDirectory() != nil))
    func optimizedAtInstall() throws {
        let models = scratch.appendingPathComponent("models")
        let installed = try PiperVoicePreparation.prepare(model: model, into: models, split: false)
        #expect(PiperModelSplitter.optimize(installed.model) == nil)
        let runtime = try OnnxRuntime.shared()
        let version = try #require(runtime.version)
        let optimized = PiperVoicePreparation.optimizedFile(for: installed.model, onnxRuntime: version)
        #expect(PiperVoicePreparation.currentOptimizedFile(for: installed.model, onnxRuntime: version) == optimized)
        let config = try PiperVoiceConfig(contentsOf: installed.config)
        #expect(try PiperModel(files: installed, config: config, runtime: runtime).loadedModel == optimized)
        // Taken out again (a voice that does not run), nothing is left behind.
        PiperVoicePreparation.remove(installed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: models.path).isEmpty)
    }

    @Test("an unknown voice's error shows at most 100 characters of the name it was given")
    func unknownVoiceIsCut() throws {
        let name = String(repeating: "x", count: 1 << 20)
        do {
            _ = try Joe.catalog.voice(named: name)
            Issue.record("a voice named \(name.prefix(10))… was found")
        } catch {
            let message = error.description
            #expect(message.contains("'" + String(repeating: "x", count: 100) + "…'"), "\(message.prefix(300))")
            #expect(message.count < 200, "\(message.count) characters")
        }
        // As a user meets it: a 100 KB name on the command line (one argument's limit is 128 KB).
        let result = try Command.run([full, "-v", String(repeating: "y", count: 100_000), "Hello"])
        #expect(result.status == 64, "\(result.stderr.prefix(300))")
        #expect(result.stderr.count < 300 && result.stderr.contains(String(repeating: "y", count: 100) + "…'"))
    }
}
