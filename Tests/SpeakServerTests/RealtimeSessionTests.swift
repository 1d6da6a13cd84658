import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// `/v1/realtime?intent=transcription` on a real socket, in process, over a test transcriber
/// that hears the same words in any audio and the level detector: the events' shapes and order,
/// and the client's mistakes. (The `openai` package's own client, with Whisper, is
/// RealtimeTranscriptionTests.)
@Suite("Realtime transcription sessions")
struct RealtimeSessionTests {
    let wire: WireService

    init() throws {
        wire = try WireService(InProcessService(transcriber: FixedTranscriber(text: "hello there")))
    }

    /// The handshake a browser sends: the token offered as a subprotocol beside `realtime`.
    func connectAsBrowser(_ path: String = "/v1/realtime?intent=transcription", token: String) throws
        -> WebSocketClient
    {
        try WebSocketClient(
            port: wire.server.port, path: path,
            headers: ["Sec-WebSocket-Protocol": "realtime, openai-insecure-api-key.\(token)"])
    }

    /// `audio` appended 0.1 s at a time as a microphone sends it, each append when the wall clock
    /// reaches its start: the engine decodes while a turn forms only for audio not sent ahead of time.
    static func appendAsSpoken(_ client: WebSocketClient, _ audio: [UInt8]) throws {
        let began = Date()
        for (index, start) in stride(from: 0, to: audio.count, by: 4800).enumerated() {
            let due = began.addingTimeInterval(Double(index) * 0.1)
            if due > Date() { Thread.sleep(until: due) }
            let chunk = Data(audio[start..<min(audio.count, start + 4800)])
            try send(client, ["type": "input_audio_buffer.append", "audio": chunk.base64EncodedString()])
        }
    }

    func connect(_ path: String = "/v1/realtime?intent=transcription", token: String = InProcessService.token) throws
        -> WebSocketClient
    {
        try WebSocketClient(port: wire.server.port, path: path, headers: ["Authorization": "Bearer \(token)"])
    }

    /// The next event's JSON object.
    static func event(_ client: WebSocketClient) throws -> [String: Any] {
        let text = try #require(client.text(), "the connection ended")
        return try #require((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any], "\(text)")
    }

    /// Events until one of `type` (included).
    static func events(_ client: WebSocketClient, until type: String) throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        repeat { events.append(try event(client)) } while events.last?["type"] as? String != type
        return events
    }

    static func send(_ client: WebSocketClient, _ event: [String: Any]) throws {
        client.send(text: String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self))
    }

    static func append(_ client: WebSocketClient, _ bytes: [UInt8]) throws {
        for start in stride(from: 0, to: bytes.count, by: 4800) {
            let chunk = Data(bytes[start..<min(bytes.count, start + 4800)])
            try send(client, ["type": "input_audio_buffer.append", "audio": chunk.base64EncodedString()])
        }
    }

    static let format = PCMFormat(sampleRate: 24000)
    static func silence(_ seconds: Double) -> [UInt8] { [UInt8](repeating: 0, count: Int(seconds * 24000) * 2) }

    static func input(_ session: Any?) -> [String: Any]? {
        ((session as? [String: Any])?["audio"] as? [String: Any])?["input"] as? [String: Any]
    }

    @Test("session.created describes a transcription session: PCM at 24 kHz, server VAD at OpenAI's defaults")
    func created() throws {
        let client = try connect()
        #expect(client.status == 101, "\(client.head)")
        let created = try Self.event(client)
        #expect(created["type"] as? String == "session.created" && created["event_id"] is String)
        let session = created["session"] as? [String: Any]
        #expect(session?["type"] as? String == "transcription")
        let input = Self.input(session)
        #expect((input?["format"] as? [String: Any])?["rate"] as? Int == 24000)
        let detection = input?["turn_detection"] as? [String: Any]
        #expect(detection?["type"] as? String == "server_vad" && detection?["silence_duration_ms"] as? Int == 500)
        #expect(detection?["prefix_padding_ms"] as? Int == 300 && detection?["threshold"] as? Double == 0.5)
    }

    @Test("a sound then quiet is one turn: its events share an item, and its deltas join into its transcript")
    func oneTurn() throws {
        let client = try connect()
        _ = try Self.event(client)
        try Self.append(client, Self.silence(0.5) + TestAudio.tone(Self.format, seconds: 2) + Self.silence(1))
        let events = try Self.events(client, until: "conversation.item.input_audio_transcription.completed")
        let types = events.compactMap { $0["type"] as? String }.filter { !$0.hasSuffix(".delta") }
        #expect(
            types == [
                "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed",
            ])
        #expect(Set(events.compactMap { $0["item_id"] as? String }).count == 1)
        let started = try #require(events.first)["audio_start_ms"] as? Int
        #expect(started.map { (100...500).contains($0) } == true, "0.5 s of quiet less the padding: \(events[0])")
        let deltas = events.filter { $0["type"] as? String == "conversation.item.input_audio_transcription.delta" }
        let transcript = events.last?["transcript"] as? String
        #expect(!deltas.isEmpty && transcript?.contains("hello there") == true)
        #expect(deltas.compactMap { $0["delta"] as? String }.joined() == transcript)
        #expect(Set(events.compactMap { $0["event_id"] as? String }).count == events.count, "event ids are unique")
    }

    @Test("manual commits: nothing ends a turn but the commit; clear drops it, and a commit then is an error")
    func manualCommitAndClear() throws {
        let client = try connect()
        _ = try Self.event(client)
        try Self.send(
            client, ["type": "session.update", "session": ["audio": ["input": ["turn_detection": NSNull()]]]])
        let updated = try Self.event(client)
        #expect(updated["type"] as? String == "session.updated")
        #expect(Self.input(updated["session"])?["turn_detection"] is NSNull)
        try Self.append(client, TestAudio.tone(Self.format, seconds: 1) + Self.silence(1))
        try Self.send(client, ["type": "input_audio_buffer.commit"])
        let turn = try Self.events(client, until: "conversation.item.input_audio_transcription.completed")
        #expect(turn.contains { $0["type"] as? String == "input_audio_buffer.committed" })
        #expect(!turn.contains { ($0["type"] as? String ?? "").contains("speech_") }, "no detector, no speech events")
        try Self.append(client, TestAudio.tone(Self.format, seconds: 0.5))
        try Self.send(client, ["type": "input_audio_buffer.clear"])
        #expect(try Self.events(client, until: "input_audio_buffer.cleared").count >= 1)
        try Self.send(client, ["type": "input_audio_buffer.commit", "event_id": "mine"])
        let error = try Self.events(client, until: "error").last?["error"] as? [String: Any]
        #expect(
            error?["code"] as? String == "input_audio_buffer_commit_empty" && error?["event_id"] as? String == "mine")
    }

    @Test(
        "what the server cannot do is an error event naming the field, and the session goes on",
        arguments: [
            (#"{"type": "realtime"}"#, "session.type"),
            (#"{"audio": {"input": {"format": {"type": "audio/pcmu"}}}}"#, "session.audio.input.format.type"),
            (
                #"{"audio": {"input": {"turn_detection": {"type": "semantic_vad"}}}}"#,
                "session.audio.input.turn_detection.type"
            ),
            (
                #"{"audio": {"input": {"turn_detection": {"type": "server_vad", "threshold": 2}}}}"#,
                "session.audio.input.turn_detection.threshold"
            ),
            (#""transcription""#, "session"),
        ])
    func refusedUpdates(session: String, param: String) throws {
        let client = try connect()
        _ = try Self.event(client)
        client.send(text: #"{"type": "session.update", "session": "# + session + "}")
        let error = try Self.event(client)["error"] as? [String: Any]
        #expect(error?["param"] as? String == param && error?["type"] as? String == "invalid_request_error")
        try Self.send(client, ["type": "session.update", "session": ["type": "transcription"]])
        #expect(try Self.event(client)["type"] as? String == "session.updated")
    }

    @Test("an append of more than 10 s of audio is refused with an error event")
    func appendTooLarge() throws {
        let client = try connect()
        _ = try Self.event(client)
        let audio = Data(Self.silence(10.5)).base64EncodedString()
        try Self.send(client, ["type": "input_audio_buffer.append", "audio": audio])
        let error = try Self.event(client)["error"] as? [String: Any]
        #expect(error?["code"] as? String == "input_audio_buffer_append_too_large")
    }

    @Test("the handshake is refused before the upgrade: 401 without a valid token, 400 for another intent")
    func refusedHandshakes() throws {
        #expect(try connect(token: "wrong").status == 401)
        #expect(try connect("/v1/realtime?model=gpt-realtime").status == 400)
        #expect(try connect("/v1/realtime?intent=transcription&partials=yes").status == 400)
        #expect(try connect("/v1/realtime?intent=transcription").status == 101)
    }

    @Test(
        """
        a browser's token, offered as the subprotocol openai-insecure-api-key.TOKEN: a wrong one is 401 \
        before the upgrade, the right one 101 answering the protocol 'realtime' (never the token)
        """)
    func tokenAsSubprotocol() throws {
        let refused = try connectAsBrowser(token: "wrong")
        #expect(refused.status == 401, "\(refused.head)")
        let client = try connectAsBrowser(token: InProcessService.token)
        #expect(client.status == 101, "\(client.head)")
        let answered = client.head.split(separator: "\r\n").filter {
            $0.lowercased().hasPrefix("sec-websocket-protocol:")
        }
        #expect(answered == ["Sec-WebSocket-Protocol: realtime"], "\(client.head)")
        #expect(try Self.event(client)["type"] as? String == "session.created")
        // Only a WebSocket takes it: a reply a cache may keep is never made for a token Authorization lacks.
        let plain = WireClient(port: wire.server.port, authorization: nil).call(
            "GET", "/voices",
            headers: ["sec-websocket-protocol": "realtime, openai-insecure-api-key.\(InProcessService.token)"])
        #expect(plain.status == 401)
    }

    @Test("partials=true: the words still in doubt come as .partial events of the turn's item, cleared before it ends")
    func partials() throws {
        let client = try connect("/v1/realtime?intent=transcription&partials=true")
        _ = try Self.event(client)
        try Self.appendAsSpoken(client, Self.silence(0.5) + TestAudio.tone(Self.format, seconds: 2) + Self.silence(1))
        let events = try Self.events(client, until: "conversation.item.input_audio_transcription.completed")
        let partials = events.filter { $0["type"] as? String == "conversation.item.input_audio_transcription.partial" }
        let item = try #require(events.last?["item_id"] as? String)
        #expect(partials.allSatisfy { $0["item_id"] as? String == item && $0["content_index"] as? Int == 0 })
        let texts = partials.compactMap { $0["text"] as? String }
        #expect(texts.first == "hello there", "the words heard first, before two decodes agree: \(texts)")
        let firstDelta = events.firstIndex {
            $0["type"] as? String == "conversation.item.input_audio_transcription.delta"
        }
        let firstPartial = events.firstIndex {
            $0["type"] as? String == "conversation.item.input_audio_transcription.partial"
        }
        #expect(firstPartial != nil && firstDelta != nil && firstPartial! < firstDelta!, "\(events)")
        #expect(texts.last == "", "the partial is cleared once its words are final: \(texts)")
    }

    @Test("without partials=true, the same audio at the same pace brings no .partial event: OpenAI's events only")
    func noPartialsUnasked() throws {
        let client = try connect()
        _ = try Self.event(client)
        try Self.appendAsSpoken(client, Self.silence(0.5) + TestAudio.tone(Self.format, seconds: 2) + Self.silence(1))
        let events = try Self.events(client, until: "conversation.item.input_audio_transcription.completed")
        #expect(!events.contains { ($0["type"] as? String)?.hasSuffix(".partial") == true }, "\(events)")
        #expect(events.contains { $0["type"] as? String == "conversation.item.input_audio_transcription.delta" })
    }

    @Test("realtimeSessions bounds the sessions open at once: past it a handshake gets 503 too_many_sessions")
    func sessionLimit() throws {
        var configuration = ServerConfiguration()
        configuration.realtimeSessions = 1
        let limited = try WireService(
            InProcessService(configuration: configuration, transcriber: FixedTranscriber(text: "hello there")))
        let headers = ["Authorization": "Bearer \(InProcessService.token)"]
        let path = "/v1/realtime?intent=transcription"
        let first = try WebSocketClient(port: limited.server.port, path: path, headers: headers)
        #expect(first.status == 101, "\(first.head)")
        let second = try WebSocketClient(port: limited.server.port, path: path, headers: headers)
        #expect(second.status == 503, "\(second.head)")
        #expect(second.head.contains("Retry-After: 1"), "\(second.head)")
        // The default, eight, takes a second one.
        let other = try WebSocketClient(port: wire.server.port, path: path, headers: headers)
        let another = try WebSocketClient(port: wire.server.port, path: path, headers: headers)
        #expect(other.status == 101 && another.status == 101)
    }
}
