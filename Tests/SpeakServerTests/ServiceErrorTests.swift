import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// Every failure as the client sees it, in process and on the wire: its own mistakes are 4xx
/// naming the parameter, the engine's faults 5xx; a reply that fails is never a whole 200.
@Suite("SpeechService errors")
struct ServiceErrorTests {
    static let speech = #""model": "tts-1", "input": "Hello""#

    /// (path, JSON body, the `param` named, words the message has)
    static let mistakes: [(String, String, String?, String)] = [
        ("/speak", "{not json", nil, "JSON object"),
        ("/speak", "[1, 2]", nil, "JSON object"),
        ("/api/speak", #"{"text": "hi", "voice": "scriptd"}"#, "voice", "did you mean 'scripted'"),
        ("/api/speak", #"{"voice": "scripted"}"#, "text", "'text' is required"),
        ("/api/speak", #"{"text": "   "}"#, "text", "'text' is required"),
        ("/speak", #"{"text": "\#(String(repeating: "a", count: 4097))"}"#, "text", "limit is 4096"),
        ("/speak", #"{"text": "hi", "rate": 5000}"#, "rate", "rate must be"),
        ("/speak", #"{"text": "hi", "pitch": 101}"#, "pitch", "pitch must be 0...100"),
        ("/speak", #"{"text": ["Hello"]}"#, "text", "text must be a string"),
        ("/api/speak", #"{"text": "Hello", "voice": 5}"#, "voice", "voice must be a string"),
        ("/api/speak", #"{"text": "Hello", "rate": true}"#, "rate", "whole number"),
        ("/api/speak", #"{"text": "Hello", "rate": 1.5}"#, "rate", "whole number"),
        ("/api/speak", #"{"text": "Hello\u0000world"}"#, "text", "NUL"),
        ("/play", #"{"text": "Hello", "voice": "nobody"}"#, "voice", "nobody"),
        ("/v1/audio/speech", #"{"input": "Hello"}"#, "model", "'model' is required"),
        ("/v1/audio/speech", #"{"model": "tts-9", "input": "Hello"}"#, "model", "unknown model 'tts-9'"),
        ("/v1/audio/speech", #"{"model": "tts-1"}"#, "input", "'input' is required"),
        ("/v1/audio/speech", #"{"model": "tts-1", "input": 7}"#, "input", "input must be a string"),
        ("/v1/audio/speech", #"{"model": "tts-1", "input": "Hello\u0000world"}"#, "input", "NUL"),
        ("/v1/audio/speech", #"{\#(speech), "voice": 5}"#, "voice", "voice must be a string"),
        ("/v1/audio/speech", #"{\#(speech), "speed": true}"#, "speed", "speed must be a number"),
        ("/v1/audio/speech", #"{\#(speech), "speed": 0.2}"#, "speed", "speed must be 0.25...4.0"),
        ("/v1/audio/speech", #"{\#(speech), "speed": 4.5}"#, "speed", "speed must be 0.25...4.0"),
        ("/v1/audio/speech", #"{\#(speech), "response_format": 7}"#, "response_format", "must be a string"),
        ("/v1/audio/speech", #"{\#(speech), "response_format": "aiff"}"#, "response_format", "'aiff' is not supported"),
        ("/v1/audio/speech", #"{\#(speech), "stream_format": "video"}"#, "stream_format", "'video' is not supported"),
        ("/v1/audio/speech", #"{\#(speech), "instructions": 3}"#, "instructions", "must be a string"),
    ]

    @Test(
        "client mistakes are 400 in OpenAI's shape, naming the parameter; nothing is synthesised",
        arguments: Transport.allCases)
    func clientMistakes(transport: Transport) throws {
        let harness = try transport.harness()
        for (path, body, param, words) in Self.mistakes {
            let answer = harness.call("POST", path, json: body)
            #expect(answer.status == 400, "\(path) \(body.prefix(60)): \(answer.status) \(answer.text.prefix(200))")
            #expect(answer.errorField("type") == "invalid_request_error", "\(path) \(body.prefix(60))")
            #expect(answer.errorField("param") == param, "\(path) \(body.prefix(60)): \(answer.text.prefix(200))")
            #expect(
                answer.errorMessage?.contains(words) == true, "\(path) \(body.prefix(60)): \(answer.text.prefix(200))")
            #expect(try #require(answer.error).keys.sorted() == ["code", "message", "param", "type"])
        }
        let query = harness.call("GET", "/speak", query: ["text": "Hello\u{0}world"])
        #expect(query.status == 400 && query.errorField("param") == "text", "\(query.text)")
        #expect(harness.call("GET", "/speak").errorMessage == "'text' is required")
    }

    @Test(
        "OpenAI's voice names, its newer ones and dated model snapshots are answered; case does not matter",
        arguments: Transport.allCases)
    func openAINames(transport: Transport) throws {
        let harness = try transport.harness()
        for (model, voice) in [
            ("gpt-4o-mini-tts-2025-12-15", "marin"), ("tts-1-1106", "alloy"), ("tts-1-hd", "NOVA"),
            ("speak-1", "cedar"),
        ] {
            let body = #"{"model": "\#(model)", "voice": "\#(voice)", "input": "Hi.", "response_format": "wav"}"#
            let answer = harness.call("POST", "/v1/audio/speech", json: body)
            #expect(answer.status == 200 && !answer.cut, "\(model) \(voice): \(answer.text.prefix(200))")
            #expect(answer.body.prefix(4) == Data("RIFF".utf8), "\(model) \(voice)")
        }
    }

    @Test(
        "an engine that fails before its first byte is a 503 naming why, never a 200 with no body",
        arguments: Transport.allCases)
    func faultBeforeFirstByte(transport: Transport) throws {
        let harness = try transport.harness()
        for path in ["/api/speak", "/speak"] {
            let answer = harness.call("POST", path, json: #"{"text": "Hello.", "voice": "broken"}"#)
            #expect(answer.status == 503, "\(path): \(answer.status) \(answer.text)")
            #expect(answer.errorField("type") == "server_error" && answer.errorField("code") == "engine_unavailable")
            #expect(answer.errorMessage?.contains("the scripted engine failed") == true, "\(answer.text)")
        }
        // Whole replies (GET /speak) and server-sent events alike.
        let whole = harness.call("GET", "/speak", query: ["text": "Hello.", "voice": "broken"])
        #expect(whole.status >= 500 && !whole.streamed, "\(whole.status) \(whole.text)")
        let events = harness.call(
            "POST", "/v1/audio/speech",
            json: #"{"model": "tts-1", "voice": "broken", "input": "Hi", "stream_format": "sse"}"#)
        #expect(events.status == 503 && events.header("Content-Type") == "application/json", "\(events.text)")
    }

    @Test(
        "an engine that fails after its first bytes cuts the streamed reply short: never a whole 200",
        arguments: Transport.allCases)
    func faultMidReply(transport: Transport) throws {
        let harness = try transport.harness()
        let answer = harness.call("POST", "/speak", json: #"{"text": "Hello.", "voice": "cut"}"#)
        #expect(answer.streamed && answer.cut, "status \(answer.status), \(answer.body.count) bytes")
        // Nothing half made is stored: the next request makes it again, and fails again.
        let again = harness.call("POST", "/speak", json: #"{"text": "Hello.", "voice": "cut"}"#)
        #expect(again.cut && again.header("X-Speak-Cache") == "miss")
        let events = harness.call(
            "POST", "/v1/audio/speech",
            json: #"{"model": "tts-1", "voice": "cut", "input": "Hi", "stream_format": "sse"}"#)
        #expect(events.cut && !events.text.contains("speech.audio.done"), "\(events.text.suffix(200))")
    }

    @Test(
        "a voice whose model is missing is a 503 before anything streams; other voices answer",
        arguments: Transport.allCases)
    func unavailableVoice(transport: Transport) throws {
        let harness = try transport.harness()
        for path in ["/api/speak", "/speak"] {
            let answer = harness.call("POST", path, json: #"{"text": "Boo.", "voice": "missing"}"#)
            #expect(answer.status == 503 && !answer.streamed, "\(path): \(answer.text)")
            #expect(answer.errorField("code") == "engine_unavailable")
            #expect(answer.errorMessage?.contains("not installed") == true, "\(answer.text)")
        }
        let events = harness.call(
            "POST", "/v1/audio/speech",
            json: #"{"model": "tts-1", "voice": "missing", "input": "Hi", "stream_format": "sse"}"#)
        #expect(events.status == 503 && !events.streamed, "\(events.text)")
        #expect(harness.call("POST", "/api/speak", json: #"{"text": "Sannu.", "voice": "scripted"}"#).status == 200)
    }

    /// No transport: the mapping itself, for errors no test engine throws.
    @Test("each error kind maps to its status and OpenAI type: 4xx as thrown, engine faults 503, the rest 500")
    func errorMapping() throws {
        let cases: [(any Error, Int, String)] = [
            (HTTPError(413, "too big", code: "request_too_large"), 413, "invalid_request_error"),
            (SynthesisError.engineUnavailable(engine: "piper", reason: "no model"), 503, "server_error"),
            (SynthesisError.modelDamaged(engine: "piper", reason: "bad node"), 503, "server_error"),
            (SynthesisError.engineNotCarried("piper"), 503, "server_error"),
            (CocoaError(.fileReadUnknown), 500, "server_error"),
        ]
        for (error, status, type) in cases {
            let answer = ServiceAnswer(SpeechService.response(for: error))
            #expect(answer.status == status, "\(error)")
            #expect(answer.errorField("type") == type, "\(error)")
            #expect(try #require(answer.error).keys.sorted() == ["code", "message", "param", "type"])
        }
    }
}
