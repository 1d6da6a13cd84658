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

    init(text: String?, voice: Voice, rate: Int? = nil, pitch: Int? = nil, speed: Double? = nil, textParameter: String = "text", service: SpeechService) throws {
        guard let text, !text.allSatisfy(\.isWhitespace) else { throw HTTPError(400, "'\(textParameter)' is required", param: textParameter) }
        let limit = service.configuration.maximumTextCharacters
        guard text.count <= limit else {
            throw HTTPError(400, "'\(textParameter)' is \(text.count) characters; the limit is \(limit)", param: textParameter, code: "text_too_long")
        }
        if let rate, !SpeechOptions.rateRange.contains(rate) {
            throw HTTPError(400, "rate must be \(SpeechOptions.rateRange.lowerBound)...\(SpeechOptions.rateRange.upperBound) words per minute", param: "rate")
        }
        if let pitch, !SpeechOptions.pitchRange.contains(pitch) { throw HTTPError(400, "pitch must be 0...100", param: "pitch") }
        if let speed, !(0.25...4).contains(speed) { throw HTTPError(400, "speed must be 0.25...4.0", param: "speed") }
        self.text = text
        self.voice = voice
        self.pitch = pitch
        self.speed = speed
        self.rate = rate ?? speed.map { min(max(Int((Double(voice.rate) * $0).rounded()), SpeechOptions.rateRange.lowerBound), SpeechOptions.rateRange.upperBound) }
    }

    /// `{"text": "...", "voice": "nadia", "rate": 180, "pitch": 50}` (`/api/speak`, `POST /speak`, `/play`).
    init(json body: Data, service: SpeechService) throws {
        let object = try Self.object(body)
        try self.init(
            text: object["text"] as? String, voice: service.voice(named: object["voice"] as? String),
            rate: try Self.integer(object["rate"], "rate"), pitch: try Self.integer(object["pitch"], "pitch"), service: service)
    }

    /// `GET /speak?text=…&voice=…&rate=…&pitch=…`.
    init(query: [String: String], service: SpeechService) throws {
        try self.init(
            text: query["text"], voice: service.voice(named: query["voice"]),
            rate: try Self.integer(query["rate"], "rate"), pitch: try Self.integer(query["pitch"], "pitch"), service: service)
    }

    /// OpenAI's `POST /v1/audio/speech`: `model`, `input`, `voice`, `response_format`, `speed`.
    init(openAI body: Data, service: SpeechService) throws {
        let object = try Self.object(body)
        guard let model = object["model"] as? String else { throw HTTPError(400, "'model' is required", param: "model") }
        guard SpeechService.models.contains(model) else {
            throw HTTPError(400, "unknown model '\(model)'; one of \(SpeechService.models.joined(separator: ", "))", param: "model", code: "model_not_found")
        }
        let formatName = object["response_format"] as? String ?? "mp3"
        guard let format = ReplyFormat(rawValue: formatName) else {
            throw HTTPError(400, "response_format '\(formatName)' is not supported; use mp3, wav or pcm", param: "response_format")
        }
        let speed: Double?
        switch object["speed"] {
        case nil, is NSNull: speed = nil
        case let number as NSNumber: speed = number.doubleValue
        default: throw HTTPError(400, "speed must be a number", param: "speed")
        }
        try self.init(
            text: object["input"] as? String, voice: service.openAIVoice(named: object["voice"] as? String), speed: speed, textParameter: "input",
            service: service)
        self.format = format
    }

    private static func object(_ body: Data) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw HTTPError(400, "the body must be a JSON object", code: "invalid_json")
        }
        return object
    }

    private static func integer(_ value: Any?, _ name: String) throws -> Int? {
        switch value {
        case nil, is NSNull: return nil
        case let number as NSNumber where number.doubleValue == number.doubleValue.rounded(): return number.intValue
        case let text as String:
            guard let number = Int(text) else { throw HTTPError(400, "\(name) must be a whole number", param: name) }
            return number
        default: throw HTTPError(400, "\(name) must be a whole number", param: name)
        }
    }

    var request: SynthesisRequest {
        SynthesisRequest(text: text, options: SpeechOptions(voice: voice, rate: rate, pitch: pitch), format: format)
    }
}
