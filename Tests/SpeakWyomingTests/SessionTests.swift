import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakWyoming

/// Wyoming's event rules, driven in process over a socket pair: one session, one client.
@Suite("WyomingSession")
struct SessionTests {
    /// The samples of `audio-chunk` payloads, little-endian 16-bit.
    static func samples(_ events: [WyomingEvent]) -> [Int16] {
        events.filter { $0.type == "audio-chunk" }.flatMap { event in
            stride(from: 0, to: event.payload.count - 1, by: 2).map {
                Int16(bitPattern: UInt16(event.payload[$0]) | UInt16(event.payload[$0 + 1]) << 8)
            }
        }
    }

    static let format: [String: JSONValue] = ["rate": 16000, "width": 2, "channels": 1]
    /// One sentence of the scripted engine: its three chunks, each its own `audio-chunk`.
    static let sentence = ["audio-start", "audio-chunk", "audio-chunk", "audio-chunk", "audio-stop"]

    @Test("describe is answered with info naming each voice and the transcriber; the connection goes on")
    func describe() throws {
        let connection = SessionConnection(TestService.make())
        for _ in 0..<2 {
            connection.send(WyomingEvent("describe"))
            let info = try #require(try connection.next())
            #expect(info.type == "info")
            guard case .array(let tts)? = info.data["tts"], case .object(let program)? = tts.first,
                case .array(let voices)? = program["voices"]
            else {
                Issue.record("no tts program: \(info.data)")
                return
            }
            let names = voices.compactMap { voice -> String? in
                if case .object(let fields) = voice { fields["name"]?.string } else { nil }
            }
            #expect(Set(names).isSuperset(of: ["scripted", "cut", "broken"]), "\(names)")
            guard case .array(let asr)? = info.data["asr"], case .object(let recognizer)? = asr.first else {
                Issue.record("no asr program: \(info.data)")
                return
            }
            #expect(recognizer["installed"] == .bool(true))
            #expect(recognizer["description"]?.string == "speak: a fixed transcriber")
            guard case .array(let models)? = recognizer["models"], case .object(let model)? = models.first else {
                Issue.record("no model: \(recognizer)")
                return
            }
            #expect(model["name"]?.string == "fixed" && model["languages"] == ["en"])
        }
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("synthesize: audio-start, the audio in audio-chunks at its rate, audio-stop; then the next request")
    func synthesize() throws {
        let connection = SessionConnection(TestService.make())
        connection.send(WyomingEvent("synthesize", ["text": "Hello there.", "voice": ["name": "scripted"]]))
        let events = try connection.events(through: "audio-stop")
        #expect(events.map(\.type) == Self.sentence)
        #expect(events.dropLast().allSatisfy { $0.data == Self.format }, "\(events.map(\.data))")
        // Three chunks of 160 samples of the scripted tone.
        #expect(Self.samples(events) == (0..<480).map { $0 % 2 == 0 ? 1000 : -1000 })
        connection.send(WyomingEvent("ping", ["text": "still there?"]))
        let pong = try #require(try connection.next())
        #expect(pong.type == "pong" && pong.string("text") == "still there?")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("synthesize with an unknown voice: one error naming it, then the connection ends")
    func unknownVoice() throws {
        let connection = SessionConnection(TestService.make())
        connection.send(WyomingEvent("synthesize", ["text": "Hello.", "voice": ["name": "nobody"]]))
        let error = try #require(try connection.next())
        #expect(error.type == "error" && error.string("code") == "unknown-voice", "\(error)")
        #expect(error.string("text")?.contains("nobody") == true)
        #expect(try connection.next() == nil, "the connection ends after the error")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("an engine that fails after audio-start: an error and the end, never an audio-stop passing cut audio")
    func failureMidReply() throws {
        let connection = SessionConnection(TestService.make())
        connection.send(WyomingEvent("synthesize", ["text": "Hello.", "voice": ["name": "cut"]]))
        var events: [WyomingEvent] = []
        while let event = try connection.next() { events.append(event) }
        #expect(events.first?.type == "audio-start")
        #expect(events.last?.type == "error" && events.last?.string("code") == "synthesis-failed")
        #expect(!events.contains { $0.type == "audio-stop" }, "\(events.map(\.type))")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("an engine that fails before any audio: one error, then the connection ends")
    func failureBeforeAudio() throws {
        let connection = SessionConnection(TestService.make())
        connection.send(WyomingEvent("synthesize", ["text": "Hello.", "voice": ["name": "broken"]]))
        let error = try #require(try connection.next())
        #expect(error.type == "error" && error.string("code") == "synthesis-failed", "\(error)")
        #expect(try connection.next() == nil)
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("a header line past the limit: an error saying so, then the connection ends unread")
    func headerTooLong() throws {
        var limits = WyomingLimits()
        limits.headerBytes = 1024
        let connection = SessionConnection(TestService.make(limits: limits))
        connection.send(Array(#"{"type": "describe", "padding": ""#.utf8) + [UInt8](repeating: 0x61, count: 4096))
        let error = try #require(try connection.next())
        #expect(error.type == "error" && error.string("code") == "header-too-long", "\(error)")
        #expect(error.string("text") == "the header line is longer than 1024 bytes")
        #expect(try connection.next() == nil)
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("streaming: each sentence in its own audio-start/stop as it is whole, then synthesize-stopped")
    func streaming() throws {
        let engine = ScriptedSynthesizer()
        let connection = SessionConnection(TestService.make(scripted: engine))
        connection.send(WyomingEvent("synthesize-start", ["voice": ["name": "scripted"]]))
        connection.send(WyomingEvent("synthesize-chunk", ["text": "The first sentence. The sec"]))
        // The first sentence is spoken before the stream ends.
        let first = try connection.events(through: "audio-stop")
        #expect(first.map(\.type) == Self.sentence)
        connection.send(WyomingEvent("synthesize-chunk", ["text": "ond one."]))
        // Home Assistant's whole text again, for servers that do not stream: ignored in a stream.
        connection.send(WyomingEvent("synthesize", ["text": "The first sentence. The second one."]))
        connection.send(WyomingEvent("synthesize-stop"))
        let rest = try connection.events(through: "synthesize-stopped")
        #expect(rest.map(\.type) == Self.sentence + ["synthesize-stopped"])
        #expect(connection.sessionEnds(within: 10))
        // The second sentence continues audio already under way: the engine need not hurry its start.
        #expect(engine.continuations.withLock { $0 } == [false, true])
    }

    @Test(
        "transcribe: the audio in any PCM format, then audio-stop, gets the transcript in the language asked",
        arguments: [(16000, 2, 1), (48000, 2, 2), (8000, 1, 1)])
    func transcribe(rate: Int, width: Int, channels: Int) throws {
        let connection = SessionConnection(TestService.make())
        let format: [String: JSONValue] = [
            "rate": JSONValue(rate), "width": JSONValue(width), "channels": JSONValue(channels),
        ]
        connection.send(WyomingEvent("transcribe", ["language": "en"]))
        connection.send(WyomingEvent("audio-start", format))
        // Half a second, in two chunks.
        let bytes = rate / 4 * width * channels
        for _ in 0..<2 {
            connection.send(WyomingEvent("audio-chunk", format, payload: (0..<bytes).map { UInt8($0 % 7) }))
        }
        connection.send(WyomingEvent("audio-stop"))
        let transcript = try #require(
            try connection.events(through: "transcript-stop").last { $0.type == "transcript" })
        #expect(transcript.string("text") == "yes" && transcript.string("language") == "en", "\(transcript.data)")
        // The next recording goes on the same connection; with no audio, its transcript is empty.
        connection.send(WyomingEvent("audio-stop"))
        let empty = try #require(try connection.events(through: "transcript-stop").last { $0.type == "transcript" })
        #expect(empty.string("text") == "")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("audio in a format refused: one error, its chunks dropped up to audio-stop, which ends the connection")
    func refusedAudio() throws {
        let connection = SessionConnection(TestService.make())
        let format: [String: JSONValue] = ["rate": 16000, "width": 3, "channels": 9]
        connection.send(WyomingEvent("audio-start", format))
        for _ in 0..<3 {
            connection.send(WyomingEvent("audio-chunk", format, payload: [UInt8](repeating: 0, count: 270)))
        }
        connection.send(WyomingEvent("audio-stop"))
        let error = try #require(try connection.next())
        #expect(error.type == "error" && error.string("code") == "unsupported-audio", "\(error)")
        #expect(try connection.next() == nil, "one error, then the end: no transcript of nothing")
        #expect(connection.sessionEnds(within: 10))
    }
}
