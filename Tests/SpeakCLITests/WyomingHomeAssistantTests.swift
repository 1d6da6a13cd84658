import Foundation
import SpeakKit
import Testing

/// Requests that go wrong, read as Home Assistant reads them: its TTS and STT readers ignore
/// `error` events and stop only at `audio-stop`, `transcript` or the end of the stream.
@Suite("speak serve --wyoming: Home Assistant's readers end at once on an error", .serialized)
struct WyomingErrorPathTests {
    @Test("a plain synthesize refused (unknown voice, unknown speaker, text too long) ends within 2 s")
    func refusedSynthesize() throws {
        let server = try RunningWyomingServer()
        let reply = try server.client("ha-tts-errors")
        for refusal in ["unknown-voice", "unknown-speaker", "text-too-long"] {
            let result = try #require(reply[refusal] as? [String: Any], "\(reply)")
            // Home Assistant 2025.4's (None, None): it logs "No TTS from tts.speak" at once.
            #expect(result["outcome"] as? String == "no audio (connection lost)", "\(refusal): \(result)")
            #expect(result["events"] as? [String] == [refusal], "the error comes first: \(result)")
            let seconds = try #require(result["seconds"] as? Double)
            #expect(seconds < 2, "\(refusal): Home Assistant waited \(seconds) s")
        }
        let spoken = try #require(reply["spoken"] as? [String: Any])
        #expect((spoken["outcome"] as? String)?.hasPrefix("wav ") == true, "\(spoken)")
    }

    @Test("audio refused as too long: Home Assistant's STT reader ends within 2 s of its audio-stop")
    func refusedTranscription() throws {
        let server = try RunningWyomingServer(limits: "audio-seconds=1")
        let phrase = server.directory.appendingPathComponent("long.wav")
        let text = "Please turn on the kitchen lights, and then the lights in the hall."
        #expect(try Speak.run(["-v", "default", "-o", phrase.path, text]).status == 0)
        let reply = try server.client("ha-stt-error", [phrase.path])
        #expect((reply["audio_seconds"] as? Double ?? 0) > 1, "\(reply)")
        #expect(reply["outcome"] as? String == "error (connection lost)", "\(reply)")
        #expect(reply["events"] as? [String] == ["audio-too-long"], "\(reply)")
        #expect((reply["seconds"] as? Double ?? 99) < 2, "\(reply)")
    }
}

/// Slots held by clients that send a byte and wait: the per-address cap, the event deadline, and
/// the waiting connection that gives way when every slot is taken.
@Suite("speak serve --wyoming: slots", .serialized)
struct WyomingSlotTests {
    @Test("64 connections stalled inside an event, from one address or from 64, do not keep a describe out")
    func slowDrip() throws {
        let server = try RunningWyomingServer()
        let reply = try server.client("drip")
        let one = try #require(reply["one_address"] as? [String: Any], "\(reply)")
        #expect(one["answer"] as? String == "info", "\(one)")
        #expect((one["seconds"] as? Double ?? 99) < 1, "\(one)")
        // Half the slots for one address: each drip past 32 took the place of an older one.
        #expect(one["closed"] as? Int == 32, "\(one)")
        let many = try #require(reply["many_addresses"] as? [String: Any], "\(reply)")
        #expect(many["answer"] as? String == "info", "\(many)")
        #expect((many["seconds"] as? Double ?? 99) < 1, "\(many)")
        #expect(many["gave_way"] as? Int == 1, "the longest waiting connection gives way: \(many)")
    }

    @Test("an event's header and payload have a deadline, however often a byte comes")
    func deadlines() throws {
        let server = try RunningWyomingServer(limits: "header-seconds=1,min-bytes-per-second=40000")
        let reply = try server.client("slow")
        for part in ["header", "payload"] {
            let result = try #require(reply[part] as? [String: Any], "\(reply)")
            #expect(result["answer"] as? String == "too-slow", "\(part): \(result)")
            // Header: 1 s; payload: 1 s and 40,000 bytes at 40,000 a second. Sent whole at this pace,
            // they would take 4.6 s and 40 s.
            let seconds = try #require(result["seconds"] as? Double)
            #expect(seconds >= 0.9 && seconds < (part == "header" ? 3 : 4), "\(part): \(seconds) s")
        }
    }

    @Test("a bad SPEAK_WYOMING_LIMITS is a usage error in one line")
    func badLimits() throws {
        let environment = ProcessInfo.processInfo.environment.merging(["SPEAK_WYOMING_LIMITS": "slots=3"]) { $1 }
        let result = try Speak.run(
            ["serve", "--no-http", "--wyoming", "tcp://127.0.0.1:0", "--workers", "1"], environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("slots=3"), "\(result.stderr)")
    }
}
