/// An espeak-ng voice's settings: the object under `"espeak"` in its voice file.
public struct EspeakVoiceSettings: Codable, Sendable, Equatable {
    /// espeak-ng voice name, e.g. `en-gb` or `sw`.
    public var voice: String
    /// espeak-ng variant, e.g. `f3`; `nil` for the voice's own.
    public var variant: String?
    /// Letters rewritten before synthesis, for languages espeak-ng lacks (Hausa's ɓ ɗ ƙ ƴ).
    public var transliteration: [String: String]?

    public init(voice: String, variant: String? = nil, transliteration: [String: String]? = nil) {
        self.voice = voice
        self.variant = variant
        self.transliteration = transliteration
    }

    /// The name `espeak_SetVoiceByName` takes: `voice+variant`.
    var espeakName: String { variant.map { "\(voice)+\($0)" } ?? voice }

    /// `text` with the voice's transliteration applied, longest keys first.
    public func transliterate(_ text: String) -> String {
        guard let transliteration, !transliteration.isEmpty else { return text }
        return transliteration.keys.sorted { $0.count > $1.count }.reduce(text) { text, key in
            text.replacingOccurrences(of: key, with: transliteration[key]!)
        }
    }
}

extension Voice {
    /// An espeak-ng voice.
    public static func espeak(
        name: String, language: String, _ settings: EspeakVoiceSettings, rate: Int = 175, pitch: Int = 50,
        description: String = ""
    ) -> Voice {
        Voice(
            name: name, language: language, engine: EspeakSynthesizer.engineName, rate: rate, pitch: pitch,
            description: description, settings: (try? JSONValue(encoding: settings)) ?? .object([:]))
    }
}
