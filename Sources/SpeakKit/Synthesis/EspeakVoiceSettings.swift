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

    /// `voice`'s settings, read from its JSON directly: through Codable (a round trip via
    /// JSONEncoder and JSONDecoder) this was a large part of the work `speak TEXT` does before speaking.
    init(of voice: Voice) throws(VoiceError) {
        func invalid(_ reason: String) -> VoiceError { .invalidSettings(voice.name, voice.engine, reason) }
        guard case .object(let fields) = voice.settings else { throw invalid("the settings must be an object") }
        guard case .string(let name)? = fields["voice"] else {
            throw invalid("'voice' (an espeak-ng voice name such as en-us) is required")
        }
        self.voice = name
        switch fields["variant"] {
        case nil, .null: variant = nil
        case .string(let value): variant = value
        default: throw invalid("'variant' must be a string")
        }
        switch fields["transliteration"] {
        case nil, .null: transliteration = nil
        case .object(let letters):
            var replacements: [String: String] = [:]
            for (letter, value) in letters {
                guard case .string(let replacement) = value else {
                    throw invalid("'transliteration' must map letters to strings")
                }
                replacements[letter] = replacement
            }
            transliteration = replacements
        default: throw invalid("'transliteration' must map letters to strings")
        }
    }

    /// These settings as a voice file holds them.
    var json: JSONValue {
        var fields: [String: JSONValue] = ["voice": .string(voice)]
        if let variant { fields["variant"] = .string(variant) }
        if let transliteration { fields["transliteration"] = .object(transliteration.mapValues { .string($0) }) }
        return .object(fields)
    }

    /// The name `espeak_SetVoiceByName` takes: `voice+variant`.
    var espeakName: String { variant.map { "\(voice)+\($0)" } ?? voice }

    /// `text` with the voice's transliteration applied, longest keys first.
    public func transliterate(_ text: String) -> String {
        guard let transliteration, !transliteration.isEmpty else { return text }
        return transliteration.keys.sorted { $0.count > $1.count }.reduce(text) { text, key in
            text.replacing(key, with: transliteration[key]!)
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
            description: description, settings: settings.json)
    }
}
