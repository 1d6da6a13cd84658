/// A named voice: which engine speaks it, at what rate and pitch, and that engine's own settings.
/// Voices live as JSON files in `Voices/` (see ``VoiceCatalog``):
///
///     {"name": "nadia", "language": "ha", "engine": "espeak", "rate": 160, "pitch": 55,
///      "espeak": {"voice": "sw", "variant": "f3", "transliteration": {"ɓ": "b"}}}
///
/// The engine's settings sit under the engine's name and only the engine reads them, so a new
/// engine needs no change here. Files from before engines (`espeakVoice`, `variant`,
/// `transliteration` at the top) still load, as espeak-ng voices.
public struct Voice: Codable, Sendable, Equatable {
    public let name: String
    /// BCP 47 language tag of the language the voice speaks, e.g. `ha` or `en-GB`.
    public let language: String
    /// The engine that speaks it: `espeak` (the default), `upstream`, `piper`…
    public let engine: String
    /// Words per minute at normal speed.
    public let rate: Int
    /// 0...100.
    public let pitch: Int
    public let description: String
    /// The object under the engine's name in the voice file.
    public let settings: JSONValue

    public static let defaultEngine = "espeak"

    public init(
        name: String, language: String, engine: String = Voice.defaultEngine, rate: Int = 175, pitch: Int = 50,
        description: String = "", settings: JSONValue = .object([:])
    ) {
        self.name = name
        self.language = language
        self.engine = engine
        self.rate = rate
        self.pitch = pitch
        self.description = description
        self.settings = settings
        identity = Self.identity(
            name: name, language: language, engine: engine, rate: rate, pitch: pitch, settings: settings)
    }

    /// The same voice with other engine settings (a Piper voice's other speaker).
    public func with(settings: JSONValue) -> Voice {
        Voice(
            name: name, language: language, engine: engine, rate: rate, pitch: pitch, description: description,
            settings: settings)
    }

    /// This engine's settings as its own type.
    public func settings<T: Decodable>(as type: T.Type) throws(VoiceError) -> T {
        do { return try settings.decode(type) } catch let error as DecodingError {
            throw .invalidSettings(name, engine, error.summary)
        } catch {
            throw .invalidSettings(name, engine, String(describing: error))
        }
    }

    /// Everything about the voice that changes its sound, in a fixed order: part of reply cache keys.
    /// Made once, when the voice is: every request needs it, cache hits included (building it per
    /// request was a twentieth of a cached reply's CPU).
    public let identity: String

    private static func identity(
        name: String, language: String, engine: String, rate: Int, pitch: Int, settings: JSONValue
    ) -> String {
        [name, language, engine, String(rate), String(pitch), settings.canonical].joined(separator: "\u{1F}")
    }

    private enum CodingKeys: String, CodingKey {
        case name, language, engine, rate, pitch, description
    }

    private struct EngineKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    /// A voice file's contents. Files from before engines (`espeakVoice`, `variant`,
    /// `transliteration` at the top) load as espeak-ng voices; a file with an `upstream` object
    /// and no `engine` is an upstream voice.
    public init(json: JSONValue) throws(VoiceFormatError) {
        guard case .object(let fields) = json else { throw VoiceFormatError("a voice file must hold a JSON object") }
        func string(_ key: String) throws(VoiceFormatError) -> String? {
            switch fields[key] {
            case nil, .null: return nil
            case .string(let value): return value
            default: throw VoiceFormatError("'\(key)' must be a string")
            }
        }
        func integer(_ key: String) throws(VoiceFormatError) -> Int? {
            switch fields[key] {
            case nil, .null: return nil
            case .number(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
            default: throw VoiceFormatError("'\(key)' must be a whole number")
            }
        }
        guard let name = try string("name") else { throw VoiceFormatError("'name' is required") }
        guard let language = try string("language") else { throw VoiceFormatError("'language' is required") }
        let engine = try string("engine") ?? (fields["upstream"] != nil ? "upstream" : Self.defaultEngine)
        let settings: JSONValue
        if let own = fields[engine], own != .null {
            settings = own
        } else if engine == Self.defaultEngine, let voice = try string("espeakVoice") {
            var legacy: [String: JSONValue] = ["voice": .string(voice)]
            if let variant = try string("variant") { legacy["variant"] = .string(variant) }
            if let letters = fields["transliteration"], letters != .null { legacy["transliteration"] = letters }
            settings = .object(legacy)
        } else {
            settings = .object([:])
        }
        self.init(
            name: name, language: language, engine: engine, rate: try integer("rate") ?? 175,
            pitch: try integer("pitch") ?? 50, description: try string("description") ?? "", settings: settings)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(language, forKey: .language)
        try container.encode(engine, forKey: .engine)
        try container.encode(rate, forKey: .rate)
        try container.encode(pitch, forKey: .pitch)
        try container.encode(description, forKey: .description)
        var engines = encoder.container(keyedBy: EngineKey.self)
        try engines.encode(settings, forKey: EngineKey(stringValue: engine))
    }
}

/// A voice file whose JSON is valid but not a voice: what is wrong, in words.
public struct VoiceFormatError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
