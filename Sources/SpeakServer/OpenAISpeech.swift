import Foundation
import SpeakKit

/// The parts of OpenAI's speech API beyond a plain audio reply: server-sent events and the voice list.
extension SpeechService {
    /// `stream_format: "sse"`: the reply's audio as `speech.audio.delta` events (base64, as it is
    /// encoded), then `speech.audio.done` with `usage`. From the cache when the reply was made before.
    func speakEvents(_ order: SpeechOrder, client: String?) throws -> HTTPResponse {
        let reply = try engine.reply(ReplyRequest(order.request, client: client, admission: self))
        let hit =
            switch reply {
            case .ready(_, let info), .later(let info, _), .stream(let info, _), .unchanged(let info): info.fromCache
            case .samples: false
            }
        // No audio tokens here: the text's tokens are estimated as OpenAI's rule of thumb has it.
        let inputTokens = (order.text.utf8.count + 3) / 4
        let headers = [
            ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
            ("X-Speak-Cache", hit ? "hit" : "miss"),
        ]
        return HTTPResponse(
            headers: headers,
            body: .stream { write in
                func send(_ event: JSONValue) throws {
                    try write(Data("data: ".utf8) + event.data + Data("\n\n".utf8))
                }
                func delta(_ audio: Data) throws {
                    try send(["type": "speech.audio.delta", "audio": .string(audio.base64EncodedString())])
                }
                func deltas(_ whole: Data) throws {
                    for start in stride(from: 0, to: whole.count, by: 32 << 10) {
                        try delta(whole[start..<min(start + 32 << 10, whole.count)])
                    }
                }
                switch reply {
                case .ready(let data, _): try deltas(data)
                case .later(_, let make): try deltas(make().0)
                case .stream(_, let write): _ = try write { try delta($0) }
                case .unchanged, .samples: preconditionFailure("an SSE reply is audio")
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
        let openAIVoice = engine.openAIVoice
        let ours: [JSONValue] = engine.catalog.voices.map { voice in
            [
                "id": .string(voice.name), "object": "audio.voice", "name": .string(voice.name),
                "language": .string(voice.language), "description": .string(voice.description),
                "engine": .string(voice.engine),
            ]
        }
        let theirs: [JSONValue] = VoiceAliases.openAI.sorted().filter { name in
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
