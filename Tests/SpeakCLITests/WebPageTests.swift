import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// The page `speak serve` answers at `/`, driven in headless Chromium by selenium
/// (`Tests/Browser/drive_page.py`; `Scripts/install-browser` installs both) against a real server,
/// with Chromium's fake microphone playing a WAV that speak synthesised.
@Suite("speak serve: the web page in a real browser", .serialized)
struct WebPageTests {
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Browser/drive_page.py").standardizedFileURL

    /// Runs the driver against `server` and returns what the page showed.
    func drive(_ server: RunningServer, token: String? = nil, _ arguments: [String]) throws -> [String: Any] {
        try seen(startDriving(server.url, token: token ?? server.token, in: server.directory, arguments))
    }

    /// The driver on the page at `url`, running; `directory` holds Chromium's TMPDIR.
    func startDriving(_ url: String, token: String, in directory: URL, _ arguments: [String]) throws -> Subprocess {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        else {
            throw TestFailure("no chromium or chromedriver: run Scripts/install-browser")
        }
        // Chromium leaves its singleton socket's directory (org.chromium.Chromium.*) in TMPDIR after
        // each run here, though the driver quits it: there, it goes with the server's directory.
        let temporary = directory.appendingPathComponent("browser-tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        return try Subprocess(
            "/usr/bin/env", ["python3", Self.driver.path, url, token] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 })
    }

    /// What the page showed, once the driver is done.
    func seen(_ driver: Subprocess) throws -> [String: Any] {
        let result = driver.wait()
        guard result.status == 0,
            let seen = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        else {
            throw TestFailure("the browser run failed (\(result.status)): \(result.stderr.suffix(2000))")
        }
        return seen
    }

    /// "yes please do that" in Piper's `joe`, after half a second of silence (so a recording that
    /// starts a little after the microphone opens still hears all of it), and how long to record.
    /// Not espeak-ng's voice: through Opus, Whisper heard it as "please do not" or "Lean Boot out"
    /// when the recording started 10 ms later.
    func microphone(in server: RunningServer) throws -> (file: URL, seconds: String) {
        let file = server.directory.appendingPathComponent("yes-please.wav")
        let made = try Speak.run(["-v", "joe", "-o", file.path, "yes please do that"])
        #expect(made.status == 0, "\(made.stderr)")
        let spoken = try PCMBuffer(audio: Data(contentsOf: file))
        let padded = PCMBuffer(
            sampleRate: spoken.sampleRate, samples: Array(repeating: 0, count: spoken.sampleRate / 2) + spoken.samples)
        try padded.encoded(as: .wav).write(to: file)
        // Record past the end of the phrase: the fake microphone plays it once, then silence.
        return (file, String(format: "%.1f", padded.duration + 0.5))
    }

    @Test("GET / is the page: open without a token, HTML, nothing loaded from elsewhere")
    func page() throws {
        let server = try RunningServer()
        let client = WireClient(port: server.port)
        let reply = client.call("GET", "/")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "text/html; charset=utf-8")
        #expect(reply.header("content-security-policy")?.contains("default-src 'none'") == true)
        #expect(reply.text.hasPrefix("<!doctype html>"))
        #expect(!reply.text.contains("://"), "the page names another site")
        // The page is open; what it calls is not.
        #expect(client.call("GET", "/voices").status == 401)
    }

    @Test("typed text is spoken by keyboard, streamed, and the audio element plays all of the reply")
    func speak() throws {
        let server = try RunningServer()
        let text = "The deployment finished without errors."
        let seen = try drive(server, ["speak", "--text", text, "--voice", "oliver"])
        #expect(seen["speak-error"] as? String == "")
        #expect((seen["voices"] as? [String])?.contains("oliver") == true)
        #expect(seen["focused"] as? String == "speak", "Tab from the text box reaches Speak")
        #expect(seen["mode"] as? String == "stream", "Chromium plays MP3 through MediaSource as it arrives")
        // The same request made here: the browser got all of it and played it to the end.
        let body = try JSONSerialization.data(withJSONObject: ["text": text, "voice": "oliver"])
        let reply = WireClient(port: server.port, token: server.token).call(
            "POST", "/api/speak", body: body, headers: ["content-type": "application/json"])
        #expect(reply.status == 200 && !reply.cut)
        #expect(seen["bytes"] as? Int == reply.body.count)
        let expected = try PCMBuffer(audio: reply.body).duration
        let duration = try #require(seen["duration"] as? Double)
        let playedEnd = try #require(seen["playedEnd"] as? Double)
        #expect(abs(duration - expected) < 0.1, "the browser's \(duration) s against the reply's \(expected) s")
        #expect(seen["playedStart"] as? Double == 0)
        #expect(abs(playedEnd - duration) < 0.05, "played to \(playedEnd) s of \(duration) s")
        #expect(seen["ended"] as? Bool == true)
    }

    @Test(
        "the fake microphone's words are recorded with a level and a duration, uploaded and shown",
        arguments: ["whisper", "pocketsphinx"])
    func record(engine: String) throws {
        let server = try RunningServer(["--engine", engine])
        let microphone = try microphone(in: server)
        let seen = try drive(server, ["record", "--mic", microphone.file.path, "--seconds", microphone.seconds])
        #expect(seen["record-error"] as? String == "")
        #expect(seen["type"] as? String == "audio/webm;codecs=opus")
        #expect(try #require(seen["peakLevel"] as? Double) > 0.3, "the level meter moved")
        let transcript = try #require(seen["transcript"] as? String)
        let words = transcript.lowercased().unicodeScalars.filter { CharacterSet.letters.contains($0) || $0 == " " }
        #expect(String(String.UnicodeScalarView(words)) == "yes please do that", "heard \(transcript)")
    }

    /// `text`'s words, lowercased, without punctuation.
    static func words(_ text: String) -> String {
        let kept = text.lowercased().unicodeScalars.map { CharacterSet.letters.contains($0) ? Character($0) : " " }
        return String(kept).split(separator: " ").joined(separator: " ")
    }

    @Test(
        """
        while recording, the live caption shows the fake microphone's words as they are said (partial words \
        dimmed, then the turn's final text), before Stop; the uploaded recording's text then takes over
        """)
    func liveCaption() throws {
        let server = try RunningServer(["--engine", "whisper"])
        let microphone = try microphone(in: server)
        let seen = try drive(server, ["caption", "--mic", microphone.file.path])
        #expect(seen["record-error"] as? String == "", "\(seen)")
        let captions = try #require(seen["captions"] as? [[String: Any]], "\(seen)")
        let during = try #require(seen["whileRecording"] as? [String: Any], "\(seen)")
        #expect(during["live"] as? String == "on", "the WebSocket was refused: \(seen)")
        #expect(during["recorder"] as? String == "recording", "read before Stop: \(during)")
        #expect(captions.allSatisfy { $0["recorder"] as? String == "recording" && $0["shown"] as? Bool == true })
        #expect(!captions.isEmpty && during["turns"] as? Int == 1, "\(seen)")
        // A live turn, decoded from a window cut at the quiet, may hear one word otherwise than the recording.
        #expect(
            RealtimeTranscriptionTests.differing(during["text"] as? String ?? "", "yes please do that") <= 1,
            "captioned \(captions)")
        #expect(
            captions.contains { !($0["partial"] as? String ?? "").isEmpty },
            "words in doubt are shown, dimmed, before they are final: \(captions)")
        let after = try #require(seen["afterUpload"] as? [String: Any])
        #expect(after["shown"] as? Bool == false, "the caption gives way to the recording's text: \(after)")
        #expect(Self.words(seen["transcript"] as? String ?? "") == "yes please do that", "\(seen)")
    }

    @Test("a server that refuses the live session (503: --realtime-sessions 0) leaves recording as it was, uncaptioned")
    func captionRefused() throws {
        let server = try RunningServer(["--engine", "whisper", "--realtime-sessions", "0"])
        let microphone = try microphone(in: server)
        let seen = try drive(server, ["record", "--mic", microphone.file.path, "--seconds", microphone.seconds])
        #expect(seen["record-error"] as? String == "", "\(seen)")
        let caption = try #require(seen["caption"] as? [String: Any], "\(seen)")
        #expect(caption["live"] as? String == "unavailable" && caption["shown"] as? Bool == false, "\(caption)")
        #expect(Self.words(seen["transcript"] as? String ?? "") == "yes please do that", "\(seen)")
    }

    @Test(
        """
        a refused upload keeps the recording, across a reload: Retry, once the token is right, \
        transcribes it without recording again
        """
    )
    func retry() throws {
        let server = try RunningServer(["--engine", "pocketsphinx"])
        let microphone = try microphone(in: server)
        let seen = try drive(
            server, token: "not-the-token",
            [
                "record", "--mic", microphone.file.path, "--seconds", microphone.seconds, "--retry-token", server.token,
            ])
        #expect((seen["firstError"] as? String)?.lowercased().contains("wrong token") == true, "\(seen)")
        #expect(seen["retryOffered"] as? Bool == true)
        #expect(seen["keptAcrossReload"] as? Bool == true)
        #expect(seen["record-error"] as? String == "")
        #expect(seen["retryOfferedAfter"] as? Bool == false, "Retry is gone once the text is in")
        #expect((seen["transcript"] as? String)?.lowercased().contains("yes please") == true, "\(seen)")
    }

    @Test("a wrong token is shown as 'wrong token', for the voices and for speaking")
    func wrongToken() throws {
        let server = try RunningServer()
        let seen = try drive(server, token: server.token + "-wrong", ["wrong-token"])
        #expect((seen["token-error"] as? String)?.lowercased().contains("wrong token") == true, "\(seen)")
        #expect((seen["speak-error"] as? String)?.lowercased().contains("wrong token") == true, "\(seen)")
    }

    @Test(
        """
        with no token typed: a server without tokens lists its voices; one with tokens shows no error on \
        arrival, and asks for the token once Speak is pressed
        """
    )
    func untyped() throws {
        let open = try drive(try RunningServer(open: true), token: "", ["untyped"])
        #expect((open["voices"] as? [String])?.contains("nadia") == true, "\(open)")
        #expect(open["token-error"] as? String == "", "\(open)")
        #expect(open["speak-error"] as? String == "", "\(open)")
        let closed = try drive(try RunningServer(), token: "", ["untyped"])
        #expect(closed["voices"] as? [String] == [""], "only the server's default: \(closed)")
        let arrival = try #require(closed["onArrival"] as? [String: String])
        let shown = arrival.values.filter { !$0.isEmpty }
        #expect(shown.isEmpty, "an error before the user did anything: \(arrival)")
        #expect(closed["speak-error"] as? String == "Type your token above.", "\(closed)")
    }

    @Test("Stop stays while the reply plays, after the whole of it has downloaded, and stops it")
    func stopWhilePlaying() throws {
        let server = try RunningServer()
        // About 15 s of speech: it downloads in well under a second, then plays on.
        let text = Array(repeating: "The deployment finished without errors, and every check passed.", count: 4)
            .joined(separator: " ")
        let seen = try drive(server, ["stop", "--text", text])
        #expect(seen["speak-error"] as? String == "", "\(seen)")
        let downloaded = try #require(seen["whenDownloaded"] as? [String: Any])
        let duration = try #require(downloaded["duration"] as? Double)
        #expect(duration > 10, "\(downloaded)")
        #expect(seen["stopShownWhilePlaying"] as? Bool == true, "no Stop while the reply plays: \(seen)")
        let after = try #require(seen["afterStop"] as? [String: Any])
        #expect(after["paused"] as? Bool == true, "\(after)")
        #expect(after["ended"] as? Bool == false, "\(after)")
        #expect(try #require(after["currentTime"] as? Double) < duration - 5, "stopped early: \(after)")
        #expect(seen["stopShownAfter"] as? Bool == false, "Stop goes once the reply is stopped")
    }

    @Test("a token refused after a good one leaves only the server's default voice, not the old token's list")
    func tokenChange() throws {
        let seen = try drive(try RunningServer(), ["token-change"])
        #expect((seen["voicesBefore"] as? [String])?.contains("nadia") == true, "\(seen)")
        #expect(seen["voices"] as? [String] == [""], "\(seen)")
        #expect((seen["token-error"] as? String)?.lowercased().contains("wrong token") == true, "\(seen)")
    }

    @Test("behind nginx with its instance gone, speaking says so in words: nginx's 502 has no JSON message")
    func proxyUnanswered() throws {
        let cluster = try Cluster(instances: 1)
        let handshake = cluster.directory.appendingPathComponent("handshake")
        let driver = try startDriving(
            cluster.url, token: cluster.alice, in: cluster.directory, ["unanswered", "--handshake", handshake.path])
        do {
            try poll("the page and its voices to load", seconds: 60) {
                FileManager.default.fileExists(atPath: handshake.path + ".ready")
            }
        } catch {
            _ = try seen(driver)  // the driver's own failure, if it had one
            throw error
        }
        cluster.instances[0].kill()
        #expect(FileManager.default.createFile(atPath: handshake.path, contents: nil))
        let seen = try seen(driver)
        #expect(
            seen["speak-error"] as? String
                == "The server is not answering behind its proxy (502): try again shortly.", "\(seen)")
    }

    @Test("at 360 px wide nothing scrolls sideways")
    func narrow() throws {
        let server = try RunningServer()
        let seen = try drive(server, ["narrow"])
        #expect(seen["innerWidth"] as? Int == 360)
        #expect(try #require(seen["scrollWidth"] as? Int) <= 360)
        #expect((seen["wider"] as? [String])?.isEmpty == true, "wider than the screen: \(seen["wider"] ?? "")")
    }
}
