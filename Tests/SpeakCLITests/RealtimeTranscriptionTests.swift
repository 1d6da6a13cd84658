import Foundation
import SpeakKit
import Testing

/// OpenAI's Realtime API, transcription sessions, on a real `speak serve` with Whisper tiny.en,
/// through the official `openai` package's `client.realtime.connect` (and its `websockets`),
/// unchanged: speech made by espeak-ng streamed in 0.1 s appends, as a microphone sends it.
@Suite("speak serve: OpenAI realtime transcription", .serialized)
final class RealtimeTranscriptionTests {
    static let sentences = [
        "Call my sister when you arrive at the airport.", "We will meet at the train station at noon.",
    ]
    let server: RunningServer

    init() throws { server = try RunningServer(["--engine", "whisper", "--model", "tiny.en"]) }

    /// `text` spoken by espeak-ng, as PCM16 mono at 24 kHz (the session's format), with `pause`
    /// seconds of silence after it.
    static func speech(_ text: String, pause: Double) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("speak-realtime-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        let spoken = try Subprocess.run("/usr/bin/espeak-ng", ["-v", "en-us", "-w", file.path, text])
        guard spoken.status == 0 else { throw TestFailure("espeak-ng: \(spoken.stderr)") }
        let audio = try WAV.decode(Data(contentsOf: file))
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: 24000)
        let samples = resampler.process(audio.samples) + resampler.finish()
        let silence = [Int16](repeating: 0, count: Int(pause * 24000))
        return (samples + silence).flatMap {
            [UInt8(UInt16(bitPattern: $0) & 0xFF), UInt8(UInt16(bitPattern: $0) >> 8)]
        }
    }

    /// Runs `body` (Python, indented by four) inside `with client.realtime.connect(...) as conn:`,
    /// `audio` the raw PCM file's bytes and `append_all()` streaming them in 0.1 s appends; returns
    /// what it printed. `token` is the bearer token sent (the server's unless given).
    func realtime(_ body: String, audio: [UInt8] = [], token: String? = nil) throws -> String {
        let file = server.directory.appendingPathComponent("speech-\(UUID()).pcm")
        try Data(audio).write(to: file)
        let script = """
            import base64, json, openai
            client = openai.OpenAI(base_url="\(server.url)/v1", websocket_base_url="ws://127.0.0.1:\(server.port)/v1",
                                   api_key="\(token ?? server.token)")
            audio = open("\(file.path)", "rb").read()
            def append_all(conn):
                for start in range(0, len(audio), 4800):
                    conn.input_audio_buffer.append(audio=base64.b64encode(audio[start:start + 4800]).decode())
            def events_until(conn, last, count=1):
                seen = []
                for event in conn:
                    seen.append(event.model_dump(exclude_none=True))
                    if event.type == last:
                        count -= 1
                        if count == 0:
                            return seen
            with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
            \(body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// The JSON objects the script printed, one a line.
    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any], "\($0)")
        }
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// Words to insert, drop or change to make `heard` `sentence` (the word error count).
    static func differing(_ heard: String, _ sentence: String) -> Int {
        let (got, want) = (words(heard), words(sentence))
        var row = Array(0...want.count)
        for word in got {
            var next = [row[0] + 1]
            for (index, wanted) in want.enumerated() {
                next.append(min(row[index + 1] + 1, next[index] + 1, row[index] + (word == wanted ? 0 : 1)))
            }
            row = next
        }
        return row[want.count]
    }

    @Test("server VAD: each spoken sentence is a turn whose deltas add up to its completed transcript")
    func serverVAD() throws {
        let audio = try [UInt8](repeating: 0, count: 9600) + Self.sentences.flatMap { try Self.speech($0, pause: 1.0) }
        let output = try realtime(
            """
            created = conn.recv()
            print(json.dumps({"type": created.type, "session_type": created.session.type}))
            conn.session.update(session={"type": "transcription", "audio": {"input": {
                "format": {"type": "audio/pcm", "rate": 24000},
                "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                "turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}}})
            append_all(conn)
            for event in events_until(conn, "conversation.item.input_audio_transcription.completed", 2):
                print(json.dumps(event))
            """, audio: audio)
        let events = try Self.objects(output)
        let types = events.compactMap { $0["type"] as? String }
        #expect(types.first == "session.created" && events.first?["session_type"] as? String == "transcription")
        let updated = try #require(events.first { $0["type"] as? String == "session.updated" })
        let input = ((updated["session"] as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
        #expect((input?["turn_detection"] as? [String: Any])?["silence_duration_ms"] as? Double == 500)
        #expect((input?["transcription"] as? [String: Any])?["language"] as? String == "en")
        let completed = events.filter {
            $0["type"] as? String == "conversation.item.input_audio_transcription.completed"
        }
        #expect(completed.count == 2, "\(types)")
        for (turn, sentence) in zip(completed, Self.sentences) {
            let item = try #require(turn["item_id"] as? String)
            let transcript = try #require(turn["transcript"] as? String)
            #expect(Self.differing(transcript, sentence) <= 1, "\(transcript)")
            let ofItem = events.filter { $0["item_id"] as? String == item }.compactMap { $0["type"] as? String }
            #expect(
                ofItem.filter { !$0.hasSuffix(".delta") } == [
                    "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                    "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed",
                ], "\(ofItem)")
            let deltas = events.filter {
                $0["item_id"] as? String == item
                    && $0["type"] as? String == "conversation.item.input_audio_transcription.delta"
            }
            #expect(!deltas.isEmpty)
            #expect(deltas.compactMap { $0["delta"] as? String }.joined() == transcript, "deltas only append")
            #expect(turn["content_index"] as? Int == 0)
        }
    }

    @Test("manual commits (turn_detection null): a commit ends the turn; an empty one is an error event")
    func manualCommit() throws {
        let output = try realtime(
            """
            conn.recv()
            conn.session.update(session={"type": "transcription", "audio": {"input": {"turn_detection": None}}})
            append_all(conn)
            conn.input_audio_buffer.commit()
            for event in events_until(conn, "conversation.item.input_audio_transcription.completed"):
                print(json.dumps(event))
            conn.input_audio_buffer.commit()
            print(json.dumps(events_until(conn, "error")[-1]))
            """, audio: try Self.speech(Self.sentences[0], pause: 0.3))
        let events = try Self.objects(output)
        let types = events.compactMap { $0["type"] as? String }
        #expect(!types.contains("input_audio_buffer.speech_started"), "no VAD: \(types)")
        let completed = try #require(
            events.first { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" })
        let transcript = try #require(completed["transcript"] as? String)
        #expect(Self.differing(transcript, Self.sentences[0]) <= 1, "\(transcript)")
        let committed = try #require(events.first { $0["type"] as? String == "input_audio_buffer.committed" })
        #expect(committed["item_id"] as? String == completed["item_id"] as? String)
        let deltas = events.filter { $0["type"] as? String == "conversation.item.input_audio_transcription.delta" }
        #expect(deltas.compactMap { $0["delta"] as? String }.joined() == transcript)
        let error = try #require(events.last?["error"] as? [String: Any])
        #expect(error["code"] as? String == "input_audio_buffer_commit_empty", "\(error)")
    }

    @Test("a wrong token is refused with 401 before the upgrade")
    func wrongToken() throws {
        let script = """
            import openai
            client = openai.OpenAI(base_url="\(server.url)/v1", websocket_base_url="ws://127.0.0.1:\(server.port)/v1",
                                   api_key="not-the-token")
            try:
                with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
                    print("connected")
            except Exception as error:
                print(error.response.status_code)
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "401")
    }

    @Test("bad events are error events (type, code, message, param) and the session goes on")
    func badEvents() throws {
        let output = try realtime(
            """
            conn.recv()
            def error_after(send):
                send()
                return [e for e in events_until(conn, "error") if e["type"] == "error"][-1]["error"]
            print(json.dumps(error_after(lambda: conn.send_raw("not json"))))
            print(json.dumps(error_after(lambda: conn.send({"type": "response.create"}))))
            print(json.dumps(error_after(lambda: conn.input_audio_buffer.append(audio="%%%"))))
            print(json.dumps(error_after(lambda: conn.session.update(session={"type": "transcription",
                "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}}))))
            print(json.dumps(error_after(lambda: conn._connection.send(b"binary"))))
            # Twelve seconds of silence at once is more than ten ahead of the clock.
            print(json.dumps(error_after(lambda: [conn.input_audio_buffer.append(
                audio=base64.b64encode(bytes(48000)).decode()) for _ in range(12)])))
            conn.session.update(session={"type": "transcription"})
            print(json.dumps({"after": events_until(conn, "session.updated")[-1]["type"]}))
            """)
        let objects = try Self.objects(output)
        let codes = objects.dropLast().map { "\($0["code"] ?? "") \($0["param"] ?? "")" }
        #expect(
            codes == [
                "invalid_json ", "invalid_value type", "invalid_value audio",
                "invalid_value session.audio.input.format.rate", "invalid_event ",
                "input_audio_buffer_too_fast audio",
            ], "\(objects)")
        #expect(
            objects.dropLast().allSatisfy { $0["type"] as? String == "invalid_request_error" && $0["message"] != nil })
        #expect(objects.last?["after"] as? String == "session.updated")
    }

    @Test(
        """
        SPEAK_REALTIME_SESSIONS bounds the live sessions (past it a handshake is a 503, and --realtime-sessions \
        wins over it); a value it does not take is one line and exit 64
        """)
    func sessionLimitFromEnvironment() throws {
        let script = { (port: Int, token: String) in
            """
            import websockets.sync.client
            from websockets.exceptions import InvalidStatus
            url = "ws://127.0.0.1:\(port)/v1/realtime?intent=transcription"
            auth = {"Authorization": "Bearer \(token)"}
            first = websockets.sync.client.connect(url, additional_headers=auth)
            print(first.recv(), flush=True)
            try:
                websockets.sync.client.connect(url, additional_headers=auth)
                print("second: 101")
            except InvalidStatus as refused:
                print("second:", refused.response.status_code)
            """
        }
        let limited = try RunningServer(environment: ["SPEAK_REALTIME_SESSIONS": "1"])
        let once = try Subprocess.run("/usr/bin/env", ["python3", "-c", script(limited.port, limited.token)])
        #expect(once.status == 0, "\(once.stderr)")
        #expect(once.stdout.contains("session.created") && once.stdout.hasSuffix("second: 503\n"), "\(once.stdout)")
        let flagWins = try RunningServer(["--realtime-sessions", "2"], environment: ["SPEAK_REALTIME_SESSIONS": "1"])
        let twice = try Subprocess.run("/usr/bin/env", ["python3", "-c", script(flagWins.port, flagWins.token)])
        #expect(twice.stdout.hasSuffix("second: 101\n"), "\(twice.stdout)\(twice.stderr)")
        let refused = try Speak.run(
            ["serve", "--port", "0", "--tokens", "/nonexistent/tokens"],
            environment: ProcessInfo.processInfo.environment.merging(
                ["SPEAK_REALTIME_SESSIONS": "lots"]) { $1 })
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("SPEAK_REALTIME_SESSIONS must be 0 to 1024, not 'lots'"), "\(refused.stderr)")
    }

    @Test("a frame that breaks the protocol closes the WebSocket with 1002")
    func garbageFrame() throws {
        let script = """
            import websockets.sync.client
            from websockets.exceptions import ConnectionClosed
            ws = websockets.sync.client.connect("ws://127.0.0.1:\(server.port)/v1/realtime?intent=transcription",
                additional_headers={"Authorization": "Bearer \(server.token)"})
            ws.recv()
            ws.socket.sendall(bytes([0x81, 0x05]) + b"hello")  # unmasked, as no client may send
            try:
                ws.recv()
            except ConnectionClosed as closed:
                print(closed.rcvd.code)
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1002")
    }

    @Test("SIGTERM closes an open session with 1001 (going away) and the server exits cleanly")
    func shutdownClosesSession() throws {
        let script = """
            import openai
            from websockets.exceptions import ConnectionClosed
            client = openai.OpenAI(base_url="\(server.url)/v1", websocket_base_url="ws://127.0.0.1:\(server.port)/v1",
                                   api_key="\(server.token)")
            with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
                print(conn.recv().type, flush=True)
                try:
                    conn._connection.recv()
                except ConnectionClosed as closed:
                    print(closed.rcvd.code, flush=True)
            """
        let python = try Subprocess("/usr/bin/env", ["python3", "-c", script])
        try poll("the session to open") { python.stdoutSoFar.contains("session.created") || python.hasExited }
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let result = python.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last == "1001", "\(result.stdout)")
    }
}
