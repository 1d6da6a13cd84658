import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// Finding, running and refusing models: missing and damaged ones are one clear line, never a crash.
@Suite("Piper models", .serialized)
final class ModelTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// The joe voice as installed.
    static var installed: URL { get throws { try Joe.synthesizer.modelFile(for: Joe.voice) } }

    func voice(_ model: String) -> Voice {
        Voice(name: "test", language: "en-US", engine: "piper", settings: .object(["model": .string(model)]))
    }

    func synthesizer() -> PiperSynthesizer {
        PiperSynthesizer(modelDirectories: [scratch])
    }

    func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as SynthesisError {
            guard case .engineUnavailable(engine: "piper", let reason) = error else { return "\(error)" }
            return reason
        } catch {
            return "\(error)"
        }
    }

    func speak(_ synthesizer: PiperSynthesizer, _ voice: Voice) throws -> Int {
        var count = 0
        try synthesizer.synthesize("Hello there.", options: SpeechOptions(voice: voice), onProgress: nil) {
            count += $0.samples.count
        }
        return count
    }

    func original(named name: String) throws -> URL { try Joe.original(named: name, in: scratch) }

    @Test("the installed joe voice is a whole ONNX model with its config beside it")
    func installed() throws {
        let model = try Self.installed
        #expect(try PiperVoicePreparation.files(of: model).config == PiperVoicePreparation.configFile(for: model))
        #expect(Joe.synthesizer.problems(with: [Joe.voice]).isEmpty)
    }

    @Test("a missing model is engineUnavailable naming the install command, and a /ready problem")
    func missing() throws {
        let synthesizer = synthesizer()
        let missing = voice("en_US-nobody-medium.onnx")
        let reason = try #require(failure { _ = try speak(synthesizer, missing) })
        #expect(
            reason.contains("en_US-nobody-medium.onnx is not installed") && reason.contains("Scripts/install-piper"))
        #expect(!reason.contains("\n"))
        #expect(synthesizer.problems(with: [missing])["voice:test"]?.contains("not installed") == true)
    }

    @Test("a truncated model or one that is not ONNX is a one-line error, not a crash")
    func corrupt() throws {
        let installed = try Self.installed
        let config = PiperVoicePreparation.configFile(for: installed)
        let truncated = scratch.appendingPathComponent("truncated.onnx")
        try Data(contentsOf: installed).prefix(1_000_000).write(to: truncated)
        let garbage = scratch.appendingPathComponent("garbage.onnx")
        try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: garbage)
        for model in [truncated, garbage] {
            try FileManager.default.copyItem(at: config, to: PiperVoicePreparation.configFile(for: model))
            let reason = try #require(failure { _ = try speak(synthesizer(), voice(model.lastPathComponent)) })
            #expect(reason.contains("corrupt model") && !reason.contains("\n"), "\(reason)")
        }
        let noConfig = scratch.appendingPathComponent("lonely.onnx")
        try FileManager.default.copyItem(at: installed, to: noConfig)
        let reason = try #require(failure { _ = try speak(synthesizer(), voice("lonely.onnx")) })
        #expect(reason.contains("has no") && reason.contains(".onnx.json"), "\(reason)")
        let badConfig = scratch.appendingPathComponent("bad.onnx")
        try FileManager.default.copyItem(at: installed, to: badConfig)
        try Data("{\"audio\": 1}".utf8).write(to: PiperVoicePreparation.configFile(for: badConfig))
        let bad = try #require(failure { _ = try speak(synthesizer(), voice("bad.onnx")) })
        #expect(bad.contains("invalid Piper voice config") && bad.contains("('audio' must be an object)"), "\(bad)")
        #expect(!bad.contains("\n") && !bad.contains("CodingKeys"), "\(bad)")
    }

    @Test("a model named by path speaks")
    func byPath() throws {
        #expect(try speak(synthesizer(), voice(try Self.installed.path)) > 10000)
    }
}
