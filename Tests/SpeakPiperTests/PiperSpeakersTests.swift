import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// A multi-speaker Piper voice lists its speakers itself, from its model's config, for any front
/// end (Wyoming's `info`) to show.
@Suite("Piper speakers")
struct PiperSpeakersTests {
    @Test("a multi-speaker model's names in its speaker order, a speaker's voice, none for one speaker")
    func speakers() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-speakers-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let installed = try Joe.synthesizer.modelFile(for: Joe.voice)
        let configData = try Data(contentsOf: PiperVoicePreparation.configFile(for: installed))
        var config = try #require(try JSONSerialization.jsonObject(with: configData) as? [String: Any])
        config["num_speakers"] = 3
        config["speaker_id_map"] = ["cara": 2, "abe": 0, "bo": 1]
        let model = scratch.appendingPathComponent("many.onnx")
        try Data().write(to: model)
        try JSONSerialization.data(withJSONObject: config).write(to: PiperVoicePreparation.configFile(for: model))
        let many = Voice(
            name: "many", language: "en-US", engine: PiperSynthesizer.engineName,
            settings: .object(["model": .string(model.path)]))
        let synthesizer: any Synthesizer = PiperSynthesizer()
        #expect(synthesizer.speakers(of: many) == ["abe", "bo", "cara"])
        let cara = try #require(synthesizer.voice(many, speakingAs: "cara"))
        #expect(try cara.settings(as: PiperVoiceSettings.self) == PiperVoiceSettings(model: model.path, speaker: 2))
        #expect(synthesizer.voice(many, speakingAs: "dee") == nil)
        #expect(synthesizer.speakers(of: Joe.voice).isEmpty)
    }
}
