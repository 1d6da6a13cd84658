import Foundation
import SpeakKit

/// One reply asked for, from any of the endpoints' request shapes, validated.
struct SpeechOrder {
    var text: String
    var voice: Voice
    var rate: Int?
    var pitch: Int?
    /// OpenAI's speed, 0.25...4 (it scales the voice's rate).
    var speed: Double?
    var format: ReplyFormat = .mp3
    /// OpenAI's `stream_format`: the audio itself (chunked, as always), or server-sent events.
    var streamFormat = StreamFormat.audio

    enum StreamFormat: String { case audio, sse }

    init(
        text: String?, voice: Voice, rate: Int? = nil, pitch: Int? = nil, speed: Double? = nil,
        textParameter: String = "text", service: SpeechService
    ) throws {
        guard let text, !text.allSatisfy(\.isWhitespace) else {
            throw HTTPError(400, "'\(textParameter)' is required", param: textParameter)
        }
        // espeak-ng reads C strings: a NUL would silently cut the text there.
        guard !text.utf8.contains(0) else {
            throw HTTPError(
                400, "'\(textParameter)' contains a NUL character", param: textParameter, code: "invalid_text")
        }
        let limit = service.configuration.maximumTextCharacters
        // A text of no more bytes than the limit has no more characters: no need to count them.
        guard text.utf8.count <= limit || text.count <= limit else {
            throw HTTPError(
                400, "'\(textParameter)' is \(text.count) characters; the limit is \(limit)", param: textParameter,
                code: "text_too_long")
        }
        if let rate, !SpeechOptions.rateRange.contains(rate) {
            throw HTTPError(
                400,
                "rate must be \(SpeechOptions.rateRange.lowerBound)...\(SpeechOptions.rateRange.upperBound)"
                    + " words per minute",
                param: "rate")
        }
        if let pitch, !SpeechOptions.pitchRange.contains(pitch) {
            throw HTTPError(400, "pitch must be 0...100", param: "pitch")
        }
        if let speed, !(0.25...4).contains(speed) { throw HTTPError(400, "speed must be 0.25...4.0", param: "speed") }
        self.text = text
        self.voice = voice
        self.pitch = pitch
        self.speed = speed
        // Each engine keeps the rate within what it can do: espeak-ng 80–450 words per minute, a
        // Piper voice the whole of OpenAI's 0.25–4.
        self.rate = rate ?? speed.map { Int((Double(voice.rate) * $0).rounded()) }
    }

    /// `{"text": "...", "voice": "nadia", "rate": 180, "pitch": 50}` (`/api/speak`, `POST /speak`, `/play`).
    init(json body: Data, service: SpeechService) throws {
        let object = try Self.object(body)
        try self.init(
            text: Self.string(object["text"], "text"),
            voice: service.voice(named: Self.string(object["voice"], "voice")),
            rate: try Self.integer(object["rate"], "rate"), pitch: try Self.integer(object["pitch"], "pitch"),
            service: service)
    }

    /// `GET /speak?text=…&voice=…&rate=…&pitch=…`.
    init(query: [String: String], service: SpeechService) throws {
        try self.init(
            text: query["text"], voice: service.voice(named: query["voice"]),
            rate: try Self.integer(query["rate"], "rate"), pitch: try Self.integer(query["pitch"], "pitch"),
            service: service)
    }

    /// OpenAI's `POST /v1/audio/speech`: `model`, `input`, `voice`, `response_format`, `speed`,
    /// `stream_format`, `instructions`. The engines here cannot follow `instructions` (a tone of
    /// voice): it is checked to be a string and otherwise ignored.
    init(openAI body: Data, service: SpeechService) throws {
        let object = try Self.object(body)
        guard let model = try Self.string(object["model"], "model") else {
            throw HTTPError(400, "'model' is required", param: "model")
        }
        guard SpeechService.isModel(model) else {
            throw HTTPError(
                400, "unknown model '\(model)'; one of \(SpeechService.models.joined(separator: ", "))", param: "model",
                code: "model_not_found")
        }
        let formatName = try Self.string(object["response_format"], "response_format") ?? "mp3"
        let codecs = service.engine.codecs
        guard let format = ReplyFormat(rawValue: formatName), codecs.canEncode(format) else {
            let names = codecs.replyFormats.map(\.rawValue).joined(separator: ", ")
            throw HTTPError(
                400, "response_format '\(formatName)' is not supported; use one of \(names)", param: "response_format")
        }
        let streamName = try Self.string(object["stream_format"], "stream_format") ?? "audio"
        guard let streamFormat = StreamFormat(rawValue: streamName) else {
            throw HTTPError(
                400, "stream_format '\(streamName)' is not supported; use audio or sse", param: "stream_format")
        }
        _ = try Self.string(object["instructions"], "instructions")
        let speed: Double?
        switch object["speed"] {
        case nil, .null: speed = nil
        case .number(let number): speed = number
        default: throw HTTPError(400, "speed must be a number", param: "speed")
        }
        try self.init(
            text: Self.string(object["input"], "input"),
            voice: service.openAIVoice(named: Self.string(object["voice"], "voice")),
            speed: speed, textParameter: "input",
            service: service)
        self.format = format
        self.streamFormat = streamFormat
    }

    private static func object(_ body: Data) throws -> [String: JSONValue] {
        guard case .object(let members) = try? JSONValue(parsing: body) else {
            throw HTTPError(400, "the body must be a JSON object", code: "invalid_json")
        }
        return members
    }

    /// A JSON string field: absent or null is `nil`; a number, a boolean or an array is a 400.
    private static func string(_ value: JSONValue?, _ name: String) throws -> String? {
        switch value {
        case nil, .null: return nil
        case .string(let text): return text
        default: throw HTTPError(400, "\(name) must be a string", param: name)
        }
    }

    /// A whole number, or one written as a string (`"180"`); absent or null is `nil`.
    private static func integer(_ value: JSONValue?, _ name: String) throws -> Int? {
        switch value {
        case nil, .null: return nil
        // Past ±1e15 a double is no longer exact, and Int(_:) would trap on ±1e300; the ranges
        // checked next are far smaller, so such a number is refused by them.
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: return Int(number)
        case .number(let number) where number == number.rounded(): return number < 0 ? Int.min : Int.max
        case .string(let text): return try integer(text, name)
        default: throw HTTPError(400, "\(name) must be a whole number", param: name)
        }
    }

    private static func integer(_ text: String?, _ name: String) throws -> Int? {
        guard let text else { return nil }
        guard let number = Int(text) else { throw HTTPError(400, "\(name) must be a whole number", param: name) }
        return number
    }

    var request: SynthesisRequest {
        SynthesisRequest(text: text, options: SpeechOptions(voice: voice, rate: rate, pitch: pitch), format: format)
    }
}
