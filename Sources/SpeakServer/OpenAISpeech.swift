import Foundation
import SpeakKit

/// The parts of OpenAI's speech API beyond a plain audio reply: server-sent events and the voice list.
extension SpeechService {
    /// `stream_format: "sse"`: the reply's audio as `speech.audio.delta` events (base64, as it is
    /// encoded), then `speech.audio.done` with `usage`. From the cache when the reply was made before.
    func speakEvents(_ order: SpeechOrder, client: String?) throws -> HTTPResponse {
        let request = order.request
        // A reply held in memory is taken here; one on disk is read by the stream, off the
        // connection threads.
        let decision = engine.decision(for: request)
        if case .make = decision {
            try admit(client)
            try engine.refuseIfUnavailable(order.voice)
        }
        let hit = if case .make = decision { false } else { true }
        // No audio tokens here: the text's tokens are estimated as OpenAI's rule of thumb has it.
        let inputTokens = (order.text.utf8.count + 3) / 4
        let headers = [
            ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
            ("X-Speak-Cache", hit ? "hit" : "miss"),
        ]
        return HTTPResponse(
            headers: headers,
            body: .stream { [engine] write in
                func send(_ event: JSONValue) throws {
                    try write(Data("data: ".utf8) + event.data + Data("\n\n".utf8))
                }
                func delta(_ audio: Data) throws {
                    try send(["type": "speech.audio.delta", "audio": .string(audio.base64EncodedString())])
                }
                let cached: Data? =
                    switch decision {
                    case .held(let held): held
                    case .stored(let key): engine.storedReply(key)
                    case .make: nil
                    }
                if let cached {
                    for start in stride(from: 0, to: cached.count, by: 32 << 10) {
                        try delta(cached[start..<min(start + 32 << 10, cached.count)])
                    }
                } else {
                    try engine.encodeReply(request) { try delta($0) }
                }
                try send([
                    "type": "speech.audio.done",
                    "usage": [
                        "input_tokens": JSONValue(inputTokens), "output_tokens": 0,
                        "total_tokens": JSONValue(inputTokens),
                    ],
                ])
            })
    }

    /// `GET /v1/audio/voices`: every voice of ours, then OpenAI's names with the voice that answers them.
    func openAIVoiceList() -> HTTPResponse {
        let ours: [JSONValue] = engine.catalog.voices.map { voice in
            [
                "id": .string(voice.name), "object": "audio.voice", "name": .string(voice.name),
                "language": .string(voice.language), "description": .string(voice.description),
                "engine": .string(voice.engine),
            ]
        }
        let theirs: [JSONValue] = Self.openAIVoices.sorted().filter { name in
            !engine.catalog.voices.contains { $0.name == name }
        }.map { name in
            [
                "id": .string(name), "object": "audio.voice", "name": .string(name),
                "language": .string(openAIVoice.language),
                "description": "OpenAI's name, spoken by \(openAIVoice.name)", "engine": .string(openAIVoice.engine),
                "speaks_as": .string(openAIVoice.name),
            ]
        }
        return .json(["object": "list", "data": .array(ours + theirs)])
    }
}
