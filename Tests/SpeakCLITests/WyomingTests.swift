import Foundation
import SpeakKit
import Testing

/// `speak serve --wyoming`, started for real and driven by the `wyoming` package's AsyncTcpClient
/// and event classes, as Home Assistant drives wyoming-piper and wyoming-faster-whisper.
@Suite("speak serve --wyoming", .serialized)
final class WyomingTests {
    let server: RunningWyomingServer

    init() throws { server = try RunningWyomingServer() }

    static let joeInstalled = FileManager.default.fileExists(
        atPath: "/usr/local/share/speak/models/en_US-joe-medium.onnx")

    @Test("describe is answered with info within Home Assistant's 1 s: every installed voice and the transcriber")
    func describe() throws {
        let info = try server.client("info")
        let tts = try #require((info["tts"] as? [[String: Any]])?.first)
        #expect(tts["installed"] as? Bool == true)
        #expect(tts["streaming"] as? Bool == true)
        let voices = try #require(tts["voices"] as? [[String: Any]])
        let names = voices.compactMap { $0["name"] as? String }
        // Every shipped espeak-ng voice is installed wherever speak runs.
        for name in ["default", "ava", "nadia", "amelie", "oliver"] { #expect(names.contains(name), "\(names)") }
        #expect(names.contains("joe") == Self.joeInstalled, "\(names)")
        for voice in voices {
            #expect(voice["installed"] as? Bool == true)
            #expect((voice["languages"] as? [String])?.isEmpty == false)
            #expect((voice["description"] as? String)?.isEmpty == false)
        }
        let nadia = voices.first { $0["name"] as? String == "nadia" }
        #expect(nadia?["languages"] as? [String] == ["ha"])
        let asr = try #require((info["asr"] as? [[String: Any]])?.first)
        // Home Assistant titles the entry after the first program (speech-to-text first).
        #expect(asr["name"] as? String == "speak" && tts["name"] as? String == "speak", "\(asr["name"] ?? "")")
        #expect(asr["installed"] as? Bool == true)
        let model = try #require((asr["models"] as? [[String: Any]])?.first)
        #expect((model["languages"] as? [String])?.contains("en") == true)
    }

    @Test("Home Assistant's voice picker: short names, and voices under the bare language as under the regional one")
    func homeAssistantVoices() throws {
        let info = try server.client("info")
        let voices = try #require((info["tts"] as? [[String: Any]])?.first?["voices"] as? [[String: Any]])
        let descriptions = Dictionary(
            uniqueKeysWithValues: voices.compactMap { voice in
                (voice["name"] as? String).map { ($0, voice["description"] as? String ?? "") }
            })
        #expect(descriptions["ava"] == "Ava (espeak-ng)" && descriptions["default"] == "Default (espeak-ng)")
        if Self.joeInstalled { #expect(descriptions["joe"] == "Joe (neural)") }
        for (name, description) in descriptions { #expect(description.count <= 40, "\(name): \(description)") }
        let grouped = try #require(info["home_assistant_voices"] as? [String: [String]])
        // What Home Assistant's voice picker lists when the pipeline's language is bare `en` or `fr`.
        for expected in ["Default (espeak-ng)", "Ava (espeak-ng)", "Oliver (espeak-ng)"] {
            #expect(grouped["en"]?.contains(expected) == true, "\(grouped)")
        }
        #expect(grouped["fr"] == ["Amelie (espeak-ng)"], "\(grouped)")
        #expect(grouped["en-US"]?.contains("Oliver (espeak-ng)") == false, "\(grouped)")
        #expect(grouped["en-GB"] == ["Oliver (espeak-ng)"], "\(grouped)")
    }

    @Test("synthesize: one audio-start/audio-stop pair holding the whole synthesised audio, nothing cut at the end")
    func synthesize() throws {
        let text = "The last words of this sentence must not be cut off."
        let expected = server.directory.appendingPathComponent("expected.wav")
        #expect(try Speak.run(["-v", "default", "-o", expected.path, text]).status == 0)
        let local = try PCMBuffer(audio: Data(contentsOf: expected))
        let raw = server.directory.appendingPathComponent("wyoming.raw")
        let reply = try server.client("synthesize", ["default", text, raw.path])
        #expect(reply["events"] as? [String] == ["audio-start", "audio-chunk", "audio-stop"])
        #expect((reply["formats"] as? [[Int]]) == [[local.sampleRate, 2, 1]])
        // This server's first synthesis: espeak-ng makes exactly what the command line makes.
        let samples = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.count == local.samples.count)
        let heard = PCMBuffer(sampleRate: local.sampleRate, samples: samples)
        let span = try #require(heard.audibleSpan(threshold: 0.02))
        let localSpan = try #require(local.audibleSpan(threshold: 0.02))
        #expect(span == localSpan, "the last audible sample is where the command line's is")
    }

    @Test("a voice asked for by language alone is one of that language; a language no voice has is an error")
    func voiceByLanguage() throws {
        let text = "Bonjour, la lumière de la cuisine est allumée."
        func samples(_ voice: String) throws -> Int {
            let file = server.directory.appendingPathComponent("\(voice).wav")
            #expect(try Speak.run(["-v", voice, "-o", file.path, text]).status == 0)
            return try PCMBuffer(audio: Data(contentsOf: file)).samples.count
        }
        let (french, english) = (try samples("amelie"), try samples("default"))
        #expect(abs(french - english) > english / 10, "the two voices must be told apart by length")
        let reply = try server.client("language", ["fr_FR", text])
        let spoken = try #require(reply["samples"] as? Int, "\(reply)")
        #expect(
            abs(spoken - french) < french / 20, "fr_FR spoke \(spoken) samples: amelie \(french), default \(english)")
        #expect(try server.client("language", ["xx", text])["error"] as? String == "unknown-voice")
        // A tag of 50,000 characters is not echoed whole.
        let long = try server.client("language", [String(repeating: "x", count: 50_000), text])
        #expect(long["error"] as? String == "unknown-voice")
        #expect(((long["text"] as? String)?.count ?? .max) < 200, "\(String(describing: long["text"]).prefix(300))")
    }

    @Test("a client that stops reading does not hold up another: its audio waits in memory, not the worker")
    func stalledClient() throws {
        // Minutes of audio, more than the two sockets' buffers hold; this server has one worker.
        let text = String(repeating: "The backup finished and every file was copied twice. ", count: 60)
        let reply = try server.client("stalled", [text])
        #expect(reply["first"] as? String == "audio-start", "\(reply)")
        #expect(reply["timeout"] == nil, "the second client waited for the stalled one: \(reply)")
        #expect(reply["events"] as? [String] == ["audio-start", "audio-chunk", "audio-stop"], "\(reply)")
    }

    @Test("a synthesize with no data at all gets an empty audio-start/audio-stop, and the connection goes on")
    func emptySynthesize() throws {
        let reply = try server.client("empty")
        #expect(reply["events"] as? [String] == ["audio-start", "audio-stop"])
        #expect(reply["samples"] as? Int == 0)
        #expect(reply["after"] as? String == "info")
    }

    static let sentences = [
        "The first sentence is short.", "The second one is a little longer than that.", "And here is the third.",
    ]

    @Test(
        "streaming: the first sentence's audio comes before the last is sent; one rate; a plain synthesize is ignored"
    )
    func streaming() throws {
        try checkStreaming(voice: "default")
    }

    @Test("streaming with the neural Piper voice", .enabled(if: WyomingTests.joeInstalled))
    func streamingPiper() throws {
        try checkStreaming(voice: "joe")
    }

    private func checkStreaming(voice: String) throws {
        let reply = try server.client("stream", [voice] + Self.sentences)
        #expect(reply["error"] == nil, "\(reply)")
        #expect(reply["first_audio_before_last_sentence"] as? Bool == true)
        let pair = ["audio-start", "audio-chunk", "audio-stop"]
        // One pair a sentence, none for the whole text sent again as a plain synthesize.
        #expect(reply["events"] as? [String] == pair + pair + pair + ["synthesize-stopped"], "\(reply)")
        let formats = try #require(reply["formats"] as? [[Int]])
        #expect(formats.count == 1 && formats.first?[1] == 2 && formats.first?[2] == 1, "\(formats)")
    }

    @Test(
        "transcribe: a phrase spoken by speak is heard, whatever the rate, sample width and channels it is sent in",
        arguments: [(22050, 2, 1), (16000, 2, 1), (48000, 4, 2), (22050, 1, 1), (44100, 3, 1)])
    func transcribe(rate: Int, width: Int, channels: Int) throws {
        // 8-bit at the phrase's own 22.05 kHz: the `wyoming` package resamples 8-bit audio as if
        // it were signed, which garbles it before it is sent.
        let phrase = server.directory.appendingPathComponent("phrase-\(rate)-\(width)-\(channels).wav")
        #expect(try Speak.run(["-v", "default", "-o", phrase.path, "Please turn on the kitchen lights."]).status == 0)
        let reply = try server.client(
            "transcribe", [phrase.path, String(rate), "en", String(width), String(channels)])
        let text = try #require(reply["text"] as? String, "\(reply)").lowercased()
        #expect(text.contains("kitchen") && text.contains("light"), "\(text)")
        #expect(reply["language"] as? String == "en")
    }

    @Test("audio in a format refused gets one error, its chunks dropped up to audio-stop, which ends the connection")
    func refusedAudio() throws {
        let reply = try server.client("refused")
        #expect(reply["events"] as? [String] == ["unsupported-audio", "closed"], "\(reply)")
    }

    @Test("SSML streamed a word a chunk is spoken as it is whole: not cut into sentences, which unbalances its tags")
    func streamedSSML() throws {
        let reply = try server.client("ssml")
        let whole = try #require(reply["whole"] as? Int)
        let streamed = try #require(reply["streamed"] as? Int)
        // Cut, only the first sentence was slow: 4.4 s of audio for 7.4 s.
        #expect(whole > 0 && abs(Double(streamed - whole)) < Double(whole) * 0.02, "\(streamed) for \(whole) samples")
    }

    @Test("a stream refused at its start gets one error, not one per chunk and another for the whole text")
    func refusedStream() throws {
        let reply = try server.client("refused-stream")
        #expect(reply["events"] as? [String] == ["unknown-voice", "synthesize-stopped", "info"], "\(reply)")
    }

    @Test("audio over the limit in one chunk is refused before it is converted: the server does not grow")
    func longChunk() throws {
        let before = try ServerFaultTests.peakMemory(of: server.process.pid)
        let reply = try server.client("long-chunk")
        #expect(reply["events"] as? [String] == ["audio-too-long", "closed"], "\(reply)")
        // The chunk itself is 8 MiB; converted to 16 kHz first, it grew the server by half a gigabyte.
        let grown = try ServerFaultTests.peakMemory(of: server.process.pid) - before
        #expect(grown < 64 << 20, "peak RSS grew \(grown >> 20) MB")
    }

    @Test("a rate that is not a number is refused, not taken for 16 kHz; audio-stop alone is an empty transcript")
    func oddAudio() throws {
        let reply = try server.client("odd")
        #expect(reply["string_rate"] as? [String] == ["unsupported-audio", "closed"], "\(reply)")
        #expect(
            reply["stop_alone"] as? [String] == ["transcript-start", "transcript", "transcript-stop", "info"],
            "\(reply)")
    }

    @Test(
        "a bad header gets an error event and the connection goes on; an oversized payload an error and a clean close")
    func badInput() throws {
        let reply = try server.client("bad")
        let badHeader = try #require(reply["bad_header"] as? [String: Any])
        #expect(badHeader["type"] as? String == "error")
        #expect(badHeader["code"] as? String == "bad-header")
        #expect(reply["after_bad_header"] as? String == "info")
        let oversized = try #require(reply["oversized"] as? [String: Any])
        #expect(oversized["type"] as? String == "error")
        #expect(oversized["code"] as? String == "too-large")
        #expect(reply["after_oversized"] as? String == "closed")
        #expect(reply["new_connection"] as? String == "info")
    }

    /// `wyoming-bench COMMAND ARGUMENTS…` against this server; its output, after checking it succeeded.
    private func bench(_ command: String, _ arguments: [String]) throws -> String {
        let result = try Subprocess.run(
            "/usr/bin/env", ["wyoming-bench", command, "127.0.0.1:\(server.port)"] + arguments + ["--timeout", "600"])
        #expect(result.status == 0, "wyoming-bench \(command): \(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("FAIL"), "\(result.stdout)")
        return result.stdout
    }

    @Test("wyoming-bench info, tts in both modes, and stt on a corpus it made with this server all succeed")
    func wyomingBench() throws {
        let info = try bench("info", [])
        #expect(
            info.contains("tts  speak (synthesize streaming)") && info.contains("voice default [en-US, en]"), "\(info)")
        #expect(info.contains("asr  "), "\(info)")
        let voice = #"{"voice":{"name":"default"}}"#
        let tts = try bench(
            "tts",
            [
                "--mode", "both", "--rounds", "1", "--warmup", "0", "--config", voice, "--texts",
                "Hello there. How are you today?",
            ])
        #expect(tts.contains("[non_streaming] ok=1 fail=0") && tts.contains("[streaming] ok=1 fail=0"), "\(tts)")
        let corpus = server.directory.appendingPathComponent("corpus")
        _ = try bench(
            "generate-corpus",
            ["--out", corpus.path, "--config", voice, "--texts", "Please turn on the kitchen lights."])
        let stt = try bench(
            "stt", ["--corpus", corpus.path, "--mode", "non_streaming", "--rounds", "1", "--warmup", "0"])
        #expect(stt.contains("[non_streaming] ok=1 fail=0") && stt.contains("WER=0.0%"), "\(stt)")
    }

    @Test("SIGTERM stops the Wyoming server cleanly")
    func stops() {
        let result = server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!RunningWyomingServer.accepts(port: server.port))
    }
}

@Suite("speak serve --wyoming flags")
struct WyomingFlagTests {
    @Test(
        "--no-http and --zeroconf need --wyoming; a bad address is a usage error",
        arguments: [
            ["--no-http"], ["--zeroconf"], ["--wyoming", "http://0.0.0.0:10200"], ["--wyoming", "tcp://0.0.0.0"],
        ])
    func usage(arguments: [String]) throws {
        let result = try Speak.run(["serve"] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }

    @Test("--zeroconf on a loopback address is refused with the reason")
    func zeroconfLoopback() throws {
        let result = try Speak.run([
            "serve", "--no-http", "--wyoming", "tcp://127.0.0.1:0", "--zeroconf", "--workers", "1",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("loopback"), "\(result.stderr)")
        // Before it listens: nothing said it was serving.
        #expect(result.stdout.isEmpty, "\(result.stdout)")
    }
}

private func avahiRunning() -> Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/avahi-browse")
        && (try? Subprocess.run("/usr/sbin/avahi-daemon", ["--check"]).status) == 0
}

/// `--zeroconf` against a running avahi-daemon (on the system D-Bus). The daemon is not started
/// here: it needs a system bus and an interface with multicast, which a test cannot make without
/// changing the machine; Notes/wyoming.md says how it was run in a network namespace of its own.
@Suite("speak serve --wyoming --zeroconf", .enabled(if: avahiRunning()))
struct ZeroconfTests {
    /// The resolved `_wyoming._tcp` records named `name`: (address, port).
    func resolved(_ name: String) throws -> [(address: String, port: Int)] {
        let listing = try Subprocess.run("/usr/bin/avahi-browse", ["-rtp", "_wyoming._tcp"]).stdout
        var records: [(address: String, port: Int)] = []
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, fields[0] == "=", fields[3] == name else { continue }
            records.append((fields[7], Int(fields[8]) ?? 0))
        }
        return records
    }

    @Test("a server bound to 0.0.0.0 is advertised as _wyoming._tcp under real addresses, and withdrawn on SIGTERM")
    func advertised() throws {
        let name = "speak-test-\(UUID().uuidString.prefix(6))"
        let server = try RunningWyomingServer(host: "0.0.0.0", ["--zeroconf-name", name])
        var records: [(address: String, port: Int)] = []
        let deadline = Date().addingTimeInterval(20)
        while records.isEmpty && Date() < deadline { records = try resolved(name) }
        #expect(!records.isEmpty, "not advertised")
        for record in records {
            #expect(record.port == server.port)
            #expect(record.address != "0.0.0.0" && record.address != "::", "\(record)")
        }
        #expect(server.stop().status == 0)
        let gone = Date().addingTimeInterval(20)
        while !(try resolved(name)).isEmpty && Date() < gone {}
        #expect(try resolved(name).isEmpty, "still advertised after SIGTERM")
    }
}
