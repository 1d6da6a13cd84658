import Foundation
import SpeakKit
import Testing

/// Requests that go wrong, read as Home Assistant reads them: its TTS and STT readers ignore
/// `error` events and stop only at `audio-stop`, `transcript` or the end of the stream.
@Suite("speak serve --wyoming: Home Assistant's readers end at once on an error", .serialized)
struct WyomingErrorPathTests {
    /// A linger far past the client's 10 s: an end that waited for it (or for the idle timeout)
    /// would leave Home Assistant still waiting, so ending at all is ending at once.
    static let longLinger = "linger-seconds=60"

    @Test("a plain synthesize refused (unknown voice, unknown speaker, text too long) ends at once, not after a timer")
    func refusedSynthesize() throws {
        let server = try RunningWyomingServer(limits: Self.longLinger)
        let reply = try server.client("ha-tts-errors")
        for refusal in ["unknown-voice", "unknown-speaker", "text-too-long"] {
            let result = try #require(reply[refusal] as? [String: Any], "\(reply)")
            // Home Assistant 2025.4's (None, None): it logs "No TTS from tts.speak" at once.
            #expect(result["outcome"] as? String == "no audio (connection lost)", "\(refusal): \(result)")
            #expect(result["events"] as? [String] == [refusal], "the error comes first: \(result)")
        }
        let spoken = try #require(reply["spoken"] as? [String: Any])
        #expect((spoken["outcome"] as? String)?.hasPrefix("wav ") == true, "\(spoken)")
    }

    @Test("audio refused as too long: Home Assistant's STT reader ends at its audio-stop, not after a timer")
    func refusedTranscription() throws {
        let server = try RunningWyomingServer(limits: "audio-seconds=1," + Self.longLinger)
        let phrase = server.directory.appendingPathComponent("long.wav")
        let text = "Please turn on the kitchen lights, and then the lights in the hall."
        #expect(try Speak.run(["-v", "default", "-o", phrase.path, text]).status == 0)
        let reply = try server.client("ha-stt-error", [phrase.path])
        #expect((reply["audio_seconds"] as? Double ?? 0) > 1, "\(reply)")
        #expect(reply["outcome"] as? String == "error (connection lost)", "\(reply)")
        #expect(reply["events"] as? [String] == ["audio-too-long"], "\(reply)")
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
        // Within the 1 s Home Assistant waits for a describe, or the answer reads "no answer".
        #expect(one["answer"] as? String == "info", "\(one)")
        // Half the slots for one address: each drip past 32 took the place of an older one.
        #expect(one["closed"] as? Int == 32, "\(one)")
        let many = try #require(reply["many_addresses"] as? [String: Any], "\(reply)")
        #expect(many["answer"] as? String == "info", "\(many)")
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
            // they would take 4.6 s and 40 s. Cut off before its end, so by its own deadline (a
            // header let through would be cut by the payload's), and not at its first piece.
            let sent = try #require(result["sent"] as? Int)
            let whole = try #require(result["whole"] as? Int)
            let step = try #require(result["step"] as? Int)
            #expect(sent > step && sent < whole, "\(part): \(result)")
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
