/// A named voice: which espeak-ng voice speaks it, how, and how its text is prepared.
/// Voices live as JSON files in `Voices/` (see ``VoiceCatalog``).
public struct Voice: Codable, Sendable, Equatable {
    public var name: String
    /// BCP 47 language tag of the language the voice speaks, e.g. `ha` or `en-GB`.
    public var language: String
    /// espeak-ng voice name, e.g. `en-gb` or `sw`.
    public var espeakVoice: String
    /// espeak-ng variant, e.g. `f3`; `nil` for the voice's own.
    public var variant: String?
    /// Words per minute.
    public var rate: Int
    /// 0...100.
    public var pitch: Int
    public var description: String
    /// Letters rewritten before synthesis, for languages espeak-ng lacks (Hausa's ɓ ɗ ƙ ƴ).
    public var transliteration: [String: String]?
    /// Fetch this voice's MP3 from another server instead of synthesising it here.
    public var upstream: Upstream?

    public init(
        name: String, language: String, espeakVoice: String, variant: String? = nil, rate: Int = 175,
        pitch: Int = 50, description: String = "", transliteration: [String: String]? = nil, upstream: Upstream? = nil
    ) {
        self.name = name
        self.language = language
        self.espeakVoice = espeakVoice
        self.variant = variant
        self.rate = rate
        self.pitch = pitch
        self.description = description
        self.transliteration = transliteration
        self.upstream = upstream
    }

    /// The name `espeak_SetVoiceByName` takes: `voice+variant`.
    var espeakName: String { variant.map { "\(espeakVoice)+\($0)" } ?? espeakVoice }

    /// `text` with the voice's transliteration applied, longest keys first.
    public func transliterate(_ text: String) -> String {
        guard let transliteration, !transliteration.isEmpty else { return text }
        return transliteration.keys.sorted { $0.count > $1.count }.reduce(text) { text, key in
            text.replacingOccurrences(of: key, with: transliteration[key]!)
        }
    }
}
