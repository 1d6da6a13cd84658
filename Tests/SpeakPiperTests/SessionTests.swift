import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// How the model's ONNX Runtime session is set up: its threads, and the optimised copy of a model
/// that loads in a third of the time.
@Suite("Piper sessions", .serialized)
final class SessionTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    @Test("ONNX Runtime gets a thread a core (at most 4), spinning, with an arena; the environment overrides them")
    func standard() {
        #expect(SessionSettings.standard(cores: 2, environment: [:]) == SessionSettings(threads: 2, spinning: true))
        #expect(SessionSettings.standard(cores: 16, environment: [:]).threads == 4)
        let chosen = SessionSettings.standard(
            cores: 2, environment: ["SPEAK_PIPER_THREADS": "1", "SPEAK_PIPER_SPINNING": "0", "SPEAK_PIPER_ARENA": "0"])
        #expect(chosen == SessionSettings(threads: 1, spinning: false, arena: false))
        let nonsense = SessionSettings.standard(
            cores: 2,
            environment: ["SPEAK_PIPER_THREADS": "0", "SPEAK_PIPER_SPINNING": "yes", "SPEAK_PIPER_ARENA": "no"])
        #expect(nonsense == SessionSettings(threads: 2, spinning: true))
    }

    /// The joe model as shipped and its config in the scratch directory, with the config's noise
    /// turned off so that two loads speak the very same samples.
    func joeCopy() throws -> (PiperVoicePreparation.Prepared, PiperVoiceConfig) {
        let installed = try Joe.synthesizer.modelFile(for: Joe.voice)
        let model = try Joe.original(named: installed.lastPathComponent, in: scratch)
        let prepared = try PiperVoicePreparation.files(of: model)
        var config = try PiperVoiceConfig(contentsOf: prepared.config)
        config.noiseScale = 0
        config.noiseW = 0
        return (prepared, config)
    }

    func speak(_ model: PiperModel) throws -> [Float] {
        let phonemes = try PiperPhonemizer.sentences("The build finished a few minutes ago.", voice: "en-us")
        let scalars = phonemes[0].phonemes.unicodeScalars.filter { model.config.phonemeIDs[$0] != nil }
        return try model.generate(scalars.map { Int32(bitPattern: $0.value) }, speaker: 0, speed: 1)
    }

    @Test("a model with an optimised copy for this ONNX Runtime loads the copy, which speaks as the model does")
    func optimizedCopy() throws {
        let runtime = try OnnxRuntime.shared()
        let version = try #require(runtime.version)
        let piperTTSVersion = try PiperTTS.run(
            [PiperTTS.python, "-c", "import onnxruntime; print(onnxruntime.__version__, end='')"], input: Data())
        // piper-tts' ONNX Runtime makes the copy: it must be the one speak runs on here.
        #expect(String(decoding: piperTTSVersion, as: UTF8.self) == version)
        let (prepared, config) = try joeCopy()
        let plain = try PiperModel(files: prepared, config: config, runtime: runtime)
        #expect(plain.loadedModel == prepared.model)
        let expected = try speak(plain)

        let optimized = PiperVoicePreparation.optimizedFile(for: prepared.model, onnxRuntime: version)
        #expect(optimized.lastPathComponent == "en_US-joe-medium.optimized-onnxruntime-\(version).onnx")
        let script = """
            import sys, onnxruntime as ort
            o = ort.SessionOptions()
            o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
            o.optimized_model_filepath = sys.argv[2]
            ort.InferenceSession(sys.argv[1], sess_options=o, providers=["CPUExecutionProvider"])
            """
        _ = try PiperTTS.run([PiperTTS.python, "-c", script, prepared.model.path, optimized.path], input: Data())
        // Without the stamp of the model it was made from, as install-piper writes it, it is not loaded.
        #expect(PiperVoicePreparation.currentOptimizedFile(for: prepared.model, onnxRuntime: version) == nil)
        let stampFile = PiperVoicePreparation.optimizedSourceFile(for: prepared.model, onnxRuntime: version)
        func stamp(_ source: URL) throws {
            try Command.run(["/usr/bin/stat", "-c", "%s %Y", source.path]).stdout.write(to: stampFile)
        }
        try stamp(prepared.model)
        let fast = try PiperModel(files: prepared, config: config, runtime: runtime)
        #expect(fast.loadedModel == optimized)
        let samples = try speak(fast)
        #expect(samples.count == expected.count)
        let difference = zip(samples, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-3, "largest difference \(difference)")

        // Made from the model before it changed, or from another file (here its config): not loaded.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: prepared.model.path)
        #expect(PiperVoicePreparation.currentOptimizedFile(for: prepared.model, onnxRuntime: version) == nil)
        #expect(try PiperModel(files: prepared, config: config, runtime: runtime).loadedModel == prepared.model)
        try stamp(prepared.model)
        #expect(PiperVoicePreparation.currentOptimizedFile(for: prepared.model, onnxRuntime: version) == optimized)
        try stamp(prepared.config)
        #expect(PiperVoicePreparation.currentOptimizedFile(for: prepared.model, onnxRuntime: version) == nil)
        // Only the runtime that made it may skip the optimisation.
        try stamp(prepared.model)
        #expect(PiperVoicePreparation.currentOptimizedFile(for: prepared.model, onnxRuntime: nil) == nil)
    }
}
