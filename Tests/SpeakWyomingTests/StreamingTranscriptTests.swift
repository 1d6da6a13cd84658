import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakWyoming

/// Wyoming's streaming transcript, driven in process over a socket pair: words are sent as
/// `transcript-chunk`s while the audio still comes, each appending to the ones before, then the
/// whole `transcript` and `transcript-stop`. The recogniser is ``ToneWords``: what is checked is
/// the order and the text of the events, not a model.
@Suite("Wyoming streaming transcripts")
struct StreamingTranscriptTests {
    static let format: [String: JSONValue] = ["rate": 16000, "width": 2, "channels": 1]

    static func service(limits: WyomingLimits = WyomingLimits()) -> WyomingService {
        let engine = SpeechEngine(catalog: VoiceCatalog(voices: []), synthesizers: SynthesizerRegistry([:]))
        let about = TranscriberDescription(name: "tone words", model: "tones", languages: ["en"])
        return WyomingService(
            engine: engine, transcriber: ToneWords(),
            transcriberInfo: .init(description: about.name, model: about.model, languages: about.languages),
            limits: limits)
    }

    /// Sends `samples` as `audio-chunk`s of 0.1 s.
    static func send(_ samples: [Int16], to connection: SessionConnection) {
        for start in stride(from: 0, to: samples.count, by: 1600) {
            let piece = TestAudio.bytes(samples[start..<min(samples.count, start + 1600)])
            connection.send(WyomingEvent("audio-chunk", format, payload: piece))
        }
    }

    static func chunks(_ events: [WyomingEvent]) -> [String] {
        events.filter { $0.type == "transcript-chunk" }.compactMap { $0.string("text") }
    }

    @Test("info offers the transcriber as streaming; the client still ends the audio (external VAD)")
    func info() throws {
        let connection = SessionConnection(Self.service())
        connection.send(WyomingEvent("describe"))
        let info = try #require(try connection.next())
        guard case .array(let asr)? = info.data["asr"], case .object(let program)? = asr.first else {
            Issue.record("no asr program: \(info.data)")
            return
        }
        #expect(program["supports_transcript_streaming"] == .bool(true), "\(program)")
        #expect(program["requires_external_vad"] == .bool(true), "\(program)")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("words come as chunks while the audio still comes; chunks append and join to the transcript")
    func chunksWhileSpeaking() throws {
        let first = ["one", "two", "three", "four"]
        let second = ["five", "six", "seven"]
        let (samples, spoken) = ToneWords.clip([first, second], lead: 0.5, pause: 1.5, gap: 0.15)
        let connection = SessionConnection(Self.service())
        connection.send(WyomingEvent("transcribe", ["language": "en"]))
        connection.send(WyomingEvent("audio-start", Self.format))
        // The first turn and its pause: its words must come before any more audio is sent.
        let firstTurnEnd = Int((spoken[first.count - 1].end + 1) * Double(ToneWords.rate))
        Self.send(Array(samples[..<firstTurnEnd]), to: connection)
        var events = try connection.events(through: "transcript-chunk")
        #expect(events.map(\.type) == ["transcript-start", "transcript-chunk"], "\(events.map(\.type))")
        #expect(events.first?.string("language") == "en")
        Self.send(Array(samples[firstTurnEnd...]), to: connection)
        connection.send(WyomingEvent("audio-stop"))
        events += try connection.events(through: "transcript-stop")

        let types = events.map(\.type)
        #expect(types.first == "transcript-start" && types.filter { $0 == "transcript-start" }.count == 1, "\(types)")
        #expect(Array(types.suffix(2)) == ["transcript", "transcript-stop"], "\(types)")
        #expect(Set(types.dropFirst().dropLast(2)) == ["transcript-chunk"], "\(types)")
        let chunks = Self.chunks(events)
        #expect(chunks.count >= 2, "more than one chunk: \(chunks)")
        let transcript = try #require(events.first { $0.type == "transcript" })
        #expect(transcript.string("text") == (first + second).joined(separator: " "), "\(transcript.data)")
        #expect(chunks.joined() == transcript.string("text"), "the chunks only append: \(chunks)")
        #expect(chunks.dropFirst().allSatisfy { $0.hasPrefix(" ") && !$0.dropFirst().hasPrefix(" ") }, "\(chunks)")
        #expect(transcript.string("language") == "en")
        #expect(!types.contains("voice-started"), "not asked for")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("vad_sensitivity asks for voice-started and voice-stopped at each turn, in milliseconds of the audio")
    func voiceEvents() throws {
        let turns = [["two", "three"], ["four", "five", "six"]]
        let (samples, spoken) = ToneWords.clip(turns, lead: 0.5, pause: 2, gap: 0.15)
        let connection = SessionConnection(Self.service())
        connection.send(WyomingEvent("transcribe", ["language": "en", "vad_sensitivity": "default"]))
        connection.send(WyomingEvent("audio-start", Self.format))
        Self.send(samples, to: connection)
        connection.send(WyomingEvent("audio-stop"))
        let events = try connection.events(through: "transcript-stop")
        let voice = events.filter { $0.type.hasPrefix("voice-") }
        #expect(voice.map(\.type) == ["voice-started", "voice-stopped", "voice-started", "voice-stopped"])
        let times = voice.compactMap { $0.integer("timestamp") }.map { Double($0) / 1000 }
        try #require(times.count == 4, "\(voice.map(\.data))")
        let padding = LiveTranscription.Settings().padding
        for (turn, (first, last)) in [(spoken[0], spoken[1]), (spoken[2], spoken[4])].enumerated() {
            #expect(abs(times[2 * turn] - (first.start - padding)) < 0.05, "started \(times[2 * turn])")
            #expect(abs(times[2 * turn + 1] - last.end) < 0.05, "stopped \(times[2 * turn + 1]) for \(last.end)")
        }
        let firstStart = try #require(events.firstIndex { $0.type == "voice-started" })
        let firstChunk = try #require(events.firstIndex { $0.type == "transcript-chunk" })
        #expect(firstStart < firstChunk, "\(events.map(\.type))")
        #expect(Self.chunks(events).joined() == "two three four five six")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("audio-stop with no audio: the stream holds an empty transcript; the next recording starts afresh")
    func empty() throws {
        let connection = SessionConnection(Self.service())
        connection.send(WyomingEvent("audio-stop"))
        let events = try connection.events(through: "transcript-stop")
        #expect(events.map(\.type) == ["transcript-start", "transcript", "transcript-stop"])
        #expect(events[1].string("text") == "")
        let (samples, _) = ToneWords.clip([["eight", "nine"]], lead: 0.5, pause: 1.5, gap: 0.15)
        connection.send(WyomingEvent("audio-start", Self.format))
        Self.send(samples, to: connection)
        connection.send(WyomingEvent("audio-stop"))
        let next = try connection.events(through: "transcript-stop")
        #expect(next.first { $0.type == "transcript" }?.string("text") == "eight nine")
        #expect(connection.sessionEnds(within: 10))
    }

    @Test("audio past the limit: one error after the chunks sent so far, no transcript, and the connection ends")
    func tooLong() throws {
        var limits = WyomingLimits()
        (limits.audioSeconds, limits.lingerSeconds) = (2, 5)
        let connection = SessionConnection(Self.service(limits: limits))
        let (samples, _) = ToneWords.clip([["one", "two"], ["three", "four"]], lead: 0.5, pause: 1, gap: 0.15)
        #expect(ToneWords.seconds(samples.count) > 2)
        connection.send(WyomingEvent("audio-start", Self.format))
        Self.send(samples, to: connection)
        connection.send(WyomingEvent("audio-stop"))
        var events: [WyomingEvent] = []
        while let event = try connection.next() { events.append(event) }
        let errors = events.filter { $0.type == "error" }
        #expect(errors.count == 1 && errors.first?.string("code") == "audio-too-long", "\(events.map(\.type))")
        #expect(events.last?.type == "error", "nothing after the error: \(events.map(\.type))")
        #expect(!events.contains { $0.type == "transcript" || $0.type == "transcript-stop" })
        #expect(connection.sessionEnds(within: 10))
    }
}
