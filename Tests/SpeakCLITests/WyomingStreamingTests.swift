import Foundation
import SpeakKit
import Testing

/// `speak serve --wyoming` with Whisper tiny.en, streaming transcripts to the `wyoming` package's
/// AsyncTcpClient: phrases spoken by speak, each followed by a pause, the next sent only once
/// words came for the one before (Tests/Fixtures/wyoming_client.py `live`).
@Suite("speak serve --wyoming: streaming transcripts", .serialized)
final class WyomingStreamingTests {
    let server: RunningWyomingServer
    static let phrases = ["Please turn on the kitchen lights.", "Then lock the front door."]

    init() throws { server = try RunningWyomingServer(["--model", "tiny.en"]) }

    /// The phrases as WAVs, spoken by speak's default voice.
    private func phraseFiles() throws -> [String] {
        var files: [String] = []
        for (index, text) in Self.phrases.enumerated() {
            let file = server.directory.appendingPathComponent("phrase-\(index).wav")
            #expect(try Speak.run(["-v", "default", "-o", file.path, text]).status == 0)
            files.append(file.path)
        }
        return files
    }

    private static func types(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["type"] as? String } }

    @Test("info says transcripts stream; Home Assistant still ends the audio (requires_external_vad)")
    func info() throws {
        let info = try server.client("info")
        let asr = try #require((info["asr"] as? [[String: Any]])?.first, "\(info)")
        #expect(asr["streaming"] as? Bool == true, "\(asr)")
        #expect(asr["external_vad"] as? Bool == true, "\(asr)")
    }

    @Test("words come as transcript-chunks while the audio still comes; they join to the transcript, then stop")
    func chunks() throws {
        let reply = try server.client("live", ["none"] + phraseFiles())
        let events = try #require(reply["events"] as? [[String: Any]], "\(reply)")
        let types = Self.types(events)
        #expect(types.first == "transcript-start" && events.first?["language"] as? String == "en", "\(types)")
        // A chunk came after each phrase's pause, before audio-stop was sent (the client waits for it).
        let beforeStop = try #require(reply["before_stop"] as? Int, "\(reply)")
        #expect(Self.types(Array(events[..<beforeStop])).filter { $0 == "transcript-chunk" }.count >= 2, "\(types)")
        #expect(Array(types.suffix(2)) == ["transcript", "transcript-stop"], "\(types)")
        #expect(Set(types.dropFirst().dropLast(2)) == ["transcript-chunk"], "\(types)")
        let chunks = events.filter { $0["type"] as? String == "transcript-chunk" }.compactMap { $0["text"] as? String }
        let transcript = try #require(events.first { $0["type"] as? String == "transcript" })
        let text = try #require(transcript["text"] as? String)
        #expect(chunks.joined() == text, "the chunks only append: \(chunks)")
        #expect(transcript["language"] as? String == "en")
        let heard = text.lowercased()
        #expect(heard.contains("kitchen") && heard.contains("light") && heard.contains("door"), "\(text)")
    }

    @Test(
        "wyoming-bench's streaming mode, which reads chunks while it sends at real-time pace, ends on transcript-stop")
    func bench() throws {
        let corpus = server.directory.appendingPathComponent("corpus")
        let voice = #"{"voice":{"name":"default"}}"#
        let generated = try Subprocess.run(
            "/usr/bin/env",
            [
                "wyoming-bench", "generate-corpus", "127.0.0.1:\(server.port)", "--out", corpus.path, "--config", voice,
                "--texts", Self.phrases[0],
            ])
        try #require(generated.status == 0, "\(generated.stdout)\(generated.stderr)")
        // 1024 samples a chunk every 64 ms: the pace of 16 kHz audio.
        let result = try Subprocess.run(
            "/usr/bin/env",
            [
                "wyoming-bench", "stt", "127.0.0.1:\(server.port)", "--corpus", corpus.path, "--mode", "streaming",
                "--rounds", "1", "--warmup", "0", "--chunk-delay", "0.064", "--timeout", "120",
            ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("NOT SUPPORTED"), "\(result.stdout)")
        #expect(result.stdout.contains("[streaming] ok=1 fail=0"), "\(result.stdout)")
    }

    @Test("vad_sensitivity asks for voice-started and voice-stopped around each phrase, in ms of the recording")
    func voiceEvents() throws {
        let reply = try server.client("live", ["default"] + phraseFiles())
        let events = try #require(reply["events"] as? [[String: Any]], "\(reply)")
        let voice = events.filter { ($0["type"] as? String)?.hasPrefix("voice-") == true }
        #expect(
            Self.types(voice) == ["voice-started", "voice-stopped", "voice-started", "voice-stopped"],
            "\(Self.types(events))")
        let times = voice.compactMap { $0["timestamp"] as? Int }.map { Double($0) / 1000 }
        let clips = try #require(reply["clip_seconds"] as? [Double], "\(reply)")
        try #require(times.count == 4 && clips.count == 2, "\(voice)")
        // Each phrase's speech within its own clip (the phrase, then its 1.5 s pause).
        #expect(times == times.sorted(), "\(times)")
        #expect(times[1] < clips[0] - 1 && times[2] > clips[0] - 0.5, "\(times) for clips \(clips)")
        #expect(times[3] < clips[0] + clips[1] - 1, "\(times) for clips \(clips)")
        let transcript = events.first { $0["type"] as? String == "transcript" }?["text"] as? String ?? ""
        #expect(transcript.lowercased().contains("kitchen"), "\(transcript)")
    }
}
