import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// Replies as the service answers them, in process and on the wire: cache headers and 304,
/// streamed or whole, server-sent events, and the voice that answered for a remote one that failed.
@Suite("SpeechService replies")
struct ServiceReplyTests {
    @Test(
        "the formats offered are the composed codecs': SpeakKit's alone refuse Opus, FFmpeg's encode it",
        arguments: Transport.allCases)
    func composedCodecs(transport: Transport) throws {
        let harness = try transport.harness()
        let body = #"{"model": "tts-1", "input": "Hello there.", "voice": "scripted", "response_format": "opus"}"#
        let light = try transport.harness(codecs: .builtIn).call("POST", "/v1/audio/speech", json: body)
        #expect(light.status == 400, "\(light.status)")
        let message = light.errorMessage ?? ""
        #expect(message.hasSuffix("use one of mp3, wav, pcm"), "\(message)")
        let full = harness.call("POST", "/v1/audio/speech", json: body)
        #expect(full.status == 200 && full.header("Content-Type") == "audio/ogg")
        #expect(full.body.starts(with: Data("OggS".utf8)), "an Ogg stream")
    }

    @Test(
        "GET /speak is answered whole with an ETag; the same request is a hit with the same bytes",
        arguments: Transport.allCases)
    func etag(transport: Transport) throws {
        let harness = try transport.harness()
        let query = ["text": "Cached reply please.", "voice": "scripted", "rate": "190"]
        let first = harness.call("GET", "/speak", query: query)
        #expect(first.status == 200 && !first.streamed, "answered whole, so a proxy can retry it elsewhere")
        #expect(first.header("X-Speak-Cache") == "miss" && first.header("Content-Type") == "audio/mpeg")
        #expect(first.header("Cache-Control") == "public, max-age=86400" && first.header("Vary") == "Authorization")
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 40)
        let second = harness.call("GET", "/speak", query: query)
        #expect(second.header("X-Speak-Cache") == "hit" && second.body == first.body && second.header("ETag") == etag)
        let other = harness.call("GET", "/speak", query: query.merging(["rate": "300"]) { $1 })
        #expect(other.header("ETag") != etag)
    }

    @Test(
        "If-None-Match with the ETag, weakly compared, in a list or *, is 304 with no body; another tag is 200",
        arguments: Transport.allCases, [true, false])
    func notModified(transport: Transport, made: Bool) throws {
        let harness = try transport.harness()
        let query = ["text": "Not modified.", "voice": "scripted"]
        // The tag is the request's, so a 304 needs no reply made or stored.
        let request = try SpeechOrder(query: query, service: harness.service).request
        let etag =
            made
            ? try #require(harness.call("GET", "/speak", query: query).header("ETag"))
            : "\"\(harness.engine.cacheKey(for: request).digest)\""
        for header in [etag, "W/\(etag)", "\"other\", W/\(etag)", "\"other\", *", "*"] {
            let answer = harness.call("GET", "/speak", query: query, headers: ["if-none-match": header])
            #expect(answer.status == 304 && answer.body.isEmpty, "\(header): \(answer.status)")
            #expect(answer.header("ETag") == etag && answer.header("Content-Type") == nil, "\(header)")
        }
        // An unquoted tag, or a quoted star, is no tag of this reply.
        for header in ["\"other\"", String(etag.dropFirst().dropLast()), "\"*\"", "W/"] {
            let changed = harness.call("GET", "/speak", query: query, headers: ["if-none-match": header])
            #expect(changed.status == 200 && !changed.body.isEmpty, "\(header): \(changed.status)")
        }
    }

    @Test(
        "POST replies stream as they are made, then are hits; the format is part of the key",
        arguments: Transport.allCases)
    func postStreamsThenHits(transport: Transport) throws {
        let harness = try transport.harness()
        let body = #"{"model": "tts-1", "voice": "scripted", "input": "Stream me.", "response_format": "wav"}"#
        let first = harness.call("POST", "/v1/audio/speech", json: body)
        #expect(first.status == 200 && first.streamed && !first.cut)
        #expect(first.header("X-Speak-Cache") == "miss" && first.header("Content-Type") == "audio/wav")
        // Three chunks of 10 ms, padded to the tenth of a second a reply lasts at least.
        let seconds = try PCMBuffer(audio: first.body).duration
        #expect(abs(seconds - 0.1) < 0.001, "\(seconds) s")
        let again = harness.call("POST", "/v1/audio/speech", json: body)
        #expect(again.header("X-Speak-Cache") == "hit" && again.body == first.body && !again.streamed)
        let mp3 = harness.call("POST", "/v1/audio/speech", json: body.replacingOccurrences(of: "wav", with: "mp3"))
        #expect(mp3.header("X-Speak-Cache") == "miss" && mp3.header("Content-Type") == "audio/mpeg")
    }

    @Test(
        "JSON with rate and pitch speaks through espeak-ng; a higher rate is shorter",
        arguments: Transport.allCases)
    func espeakRates(transport: Transport) throws {
        let harness = try transport.harness()
        func seconds(_ rate: Int) throws -> Double {
            let answer = harness.call(
                "POST", "/speak",
                json: #"{"text": "Posted to the service.", "voice": "default", "rate": \#(rate), "pitch": 30}"#)
            try #require(answer.status == 200 && !answer.cut, "\(answer.text.prefix(200))")
            return try PCMBuffer(audio: answer.body).duration
        }
        let (slow, fast) = (try seconds(120), try seconds(400))
        #expect(slow > 1 && fast < slow * 0.5, "rate 120: \(slow) s, rate 400: \(fast) s")
    }

    /// The `data:` events of a server-sent event stream, parsed.
    static func events(_ answer: ServiceAnswer) throws -> [[String: JSONValue]] {
        let blocks = answer.text.components(separatedBy: "\n\n")
        #expect(blocks.last == "", "the stream ends with a whole event")
        return try blocks.dropLast().map { block in
            #expect(block.hasPrefix("data: ") && !block.dropFirst(6).contains("\n"), "\(block.prefix(80))")
            guard case .object(let event) = try JSONValue(parsing: Data(block.dropFirst(6).utf8)) else {
                throw TestFailure("not an object: \(block.prefix(80))")
            }
            return event
        }
    }

    @Test(
        "stream_format sse: speech.audio.delta events whose audio joins into the reply, then done with usage",
        arguments: Transport.allCases)
    func serverSentEvents(transport: Transport) throws {
        let harness = try transport.harness()
        let input = "Events, please."
        let body = #"{"model": "tts-1", "voice": "scripted", "input": "\#(input)", "stream_format": "sse"}"#
        for expected in ["miss", "hit"] {
            let answer = harness.call("POST", "/v1/audio/speech", json: body)
            #expect(answer.status == 200 && answer.streamed && !answer.cut)
            #expect(
                answer.header("Content-Type") == "text/event-stream" && answer.header("Cache-Control") == "no-store")
            #expect(answer.header("X-Speak-Cache") == expected)
            let events = try Self.events(answer)
            try #require(events.count >= 2)
            let deltas = events.dropLast()
            #expect(
                deltas.allSatisfy {
                    $0["type"]?.string == "speech.audio.delta" && $0.keys.sorted() == ["audio", "type"]
                })
            let audio = deltas.reduce(into: Data()) { $0 += Data(base64Encoded: $1["audio"]?.string ?? "") ?? Data() }
            let done = try #require(events.last)
            #expect(done["type"]?.string == "speech.audio.done")
            let tokens = JSONValue((input.utf8.count + 3) / 4)
            #expect(done["usage"] == ["input_tokens": tokens, "output_tokens": 0, "total_tokens": tokens])
            // The same bytes as the plain reply, which the events' stream stored.
            let plain = harness.call(
                "POST", "/v1/audio/speech", json: body.replacingOccurrences(of: "sse", with: "audio"))
            #expect(plain.header("X-Speak-Cache") == "hit" && plain.body == audio)
        }
    }

    @Test(
        "a remote voice that is down is answered by its fallback, which the headers name; nothing is cached",
        arguments: Transport.allCases)
    func fallbackHeaders(transport: Transport) throws {
        let harness = try transport.harness()
        for round in 0..<2 {
            let answer = harness.call("POST", "/api/speak", json: #"{"text": "Are you there?", "voice": "remote"}"#)
            #expect(answer.status == 200 && !answer.streamed, "\(round): \(answer.text.prefix(200))")
            #expect(answer.header("X-Speak-Fallback") == "default")
            #expect(answer.header("X-Speak-Upstream-Error") == "the scripted engine is down")
            #expect(answer.header("Cache-Control") == "no-store" && answer.header("ETag") == nil)
            #expect(answer.header("X-Speak-Cache") == "miss", "round \(round): a fallback's reply is never stored")
            #expect(try PCMBuffer(audio: answer.body).duration > 0.5, "espeak-ng spoke it")
        }
        let played = harness.call("POST", "/play", json: #"{"text": "Hi.", "voice": "remote"}"#)
        #expect(played.status == 200 && played.header("X-Speak-Fallback") == "default", "\(played.text)")
        #expect(played.header("X-Speak-Upstream-Error") == "the scripted engine is down")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
