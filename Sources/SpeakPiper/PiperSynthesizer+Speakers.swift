import FoundationEssentials
import SpeakKit

extension PiperSynthesizer {
    /// A multi-speaker model's speaker names, from its `.onnx.json`, in the model's speaker order.
    public func speakers(of voice: Voice) -> [String] {
        speakerIDs(of: voice).sorted { $0.value < $1.value }.map(\.key)
    }

    /// The voice with its `speaker` setting set to that speaker's number in the model.
    public func voice(_ voice: Voice, speakingAs speaker: String) -> Voice? {
        guard let id = speakerIDs(of: voice)[speaker], case .object(var settings) = voice.settings else { return nil }
        settings["speaker"] = .number(Double(id))
        return voice.with(settings: .object(settings))
    }

    private func speakerIDs(of voice: Voice) -> [String: Int] {
        guard voice.engine == Self.engineName, let model = try? modelFile(for: voice),
            let config = try? PiperVoiceConfig(contentsOf: URL(fileURLWithPath: model.path + ".json")),
            config.speakers > 1
        else { return [:] }
        return config.speakerIDs
    }
}
