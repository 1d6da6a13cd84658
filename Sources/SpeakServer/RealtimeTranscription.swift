import Foundation
import SpeakKit

/// OpenAI's Realtime API, transcription sessions (`GET /v1/realtime?intent=transcription`, the
/// GA events): audio appended in base64 PCM16 at 24 kHz goes to a ``LiveTranscription`` of the
/// server's engine, and its events come back as OpenAI's. Which words are final, where a turn
/// ends, what is heard: all the engine's; this maps events and checks the client's input.
///
/// A turn is an item: `input_audio_buffer.speech_started`, its final words as
/// `conversation.item.input_audio_transcription.delta` (OpenAI's deltas only append, so words
/// that may still change are not sent), `.speech_stopped` and `.committed` when it ends (or at the
/// client's `input_audio_buffer.commit` without turn detection), then `.completed` with the whole
/// transcript. A client's mistake is an `error` event and the session goes on.
///
/// speak's extension: a client that connects with `partials=true` is also sent the words that
/// may still change, as `conversation.item.input_audio_transcription.partial` (`text` replaces
/// the item's previous partial; "" clears it), so captions show before two decodes agree.
final class RealtimeTranscription {
    /// The most audio one append may carry, in seconds (an event of OpenAI's may be 15 MiB).
    static let maximumAppendSeconds = 10.0
    /// How far ahead of the wall clock a client's audio may run (a client catching up after a
    /// stall sends faster for a while): the credit of a token bucket that fills at real time up
    /// to this. Past it appends are refused, so a session costs what real time costs.
    static let maximumLead = 10.0
    static let rate = 24000
    /// The subprotocol a browser offers for the session, and the one the 101 answers.
    static let subprotocol = "realtime"
    /// The prefix of the subprotocol that carries a browser's token (a WebSocket cannot have an
    /// Authorization header there), as OpenAI's own browser clients send it.
    static let tokenSubprotocolPrefix = "openai-insecure-api-key."

    private let engine: TranscriptionEngine
    private let connection: WebSocketConnection
    /// Whether the client asked for partial text (`partials=true`).
    private let partials: Bool
    private var configuration = Configuration()
    private var live: LiveTranscription
    private let id = "sess_" + RealtimeTranscription.randomID()
    private var sentEvents = 0
    /// The item of the turn under way, once it has one, and the one before it.
    private var item: String?
    private var previousItem: String?
    private var itemHasText = false
    /// The partial text the client was last sent for the item.
    private var partialSent = ""
    private var itemCount = 0
    /// Seconds of audio the client may still send at once, as of `lastAudio`.
    private var credit = RealtimeTranscription.maximumLead
    private var lastAudio = Date()

    /// What `session.update` can change.
    struct Configuration {
        var model = "whisper-1"
        var language: String?
        var prompt: String?
        /// `nil`: no turn detection; turns end at the client's commit.
        var turnDetection: TurnDetection? = TurnDetection()

        struct TurnDetection: Equatable {
            var threshold = 0.5
            var prefixPaddingMs = 300
            var silenceDurationMs = 500
        }

        var options: TranscriptionOptions { TranscriptionOptions(language: language, prompt: prompt) }

        var settings: LiveTranscription.Settings {
            var settings = LiveTranscription.Settings()
            if let turnDetection {
                settings.threshold = turnDetection.threshold
                settings.padding = Double(turnDetection.prefixPaddingMs) / 1000
                settings.silence = Double(turnDetection.silenceDurationMs) / 1000
            }
            return settings
        }
    }

    /// A client's mistake, answered with an `error` event.
    struct ClientError: Error {
        var message: String
        var code: String
        var param: String?
        var type = "invalid_request_error"
    }

    init(engine: TranscriptionEngine, connection: WebSocketConnection, partials: Bool = false) throws {
        self.engine = engine
        self.connection = connection
        self.partials = partials
        live = try Self.makeLive(engine, configuration)
    }

    private static func makeLive(_ engine: TranscriptionEngine, _ configuration: Configuration) throws
        -> LiveTranscription
    {
        try engine.live(
            PCMFormat(sampleRate: rate), options: configuration.options, turns: configuration.turnDetection != nil,
            settings: configuration.settings)
    }

    /// Runs the session until the client leaves or the connection closes.
    func run() {
        send(["type": "session.created", "session": session])
        while let message = connection.receive() {
            guard case .text(let text) = message else {
                error(ClientError(message: "events are JSON text messages, not binary ones", code: "invalid_event"))
                continue
            }
            handle(text)
            if connection.closeSent { return }
        }
    }

    // MARK: - Client events

    private func handle(_ text: String) {
        var eventID: String?
        do {
            let value: JSONValue
            do { value = try JSONValue(parsing: text.utf8) } catch {
                throw ClientError(message: "the event is not JSON: \(error)", code: "invalid_json")
            }
            guard case .object(let event) = value else {
                throw ClientError(message: "an event is a JSON object", code: "invalid_event")
            }
            eventID = event["event_id"]?.string
            guard let type = event["type"]?.string else {
                throw ClientError(message: "the event has no 'type'", code: "missing_required_parameter", param: "type")
            }
            switch type {
            case "session.update": try update(event["session"])
            case "input_audio_buffer.append": try append(event["audio"])
            case "input_audio_buffer.commit": try commit()
            case "input_audio_buffer.clear": clear()
            default:
                throw ClientError(
                    message: "unknown event type '\(type)'; a transcription session takes session.update and "
                        + "input_audio_buffer.append, .commit and .clear",
                    code: "invalid_value", param: "type")
            }
        } catch let mistake as ClientError {
            error(mistake, eventID: eventID)
        } catch {
            // The transcriber failed: the turn is lost, the session starts afresh.
            self.error(
                ClientError(
                    message: "transcription failed: \(error)", code: "transcription_failed", type: "server_error"),
                eventID: eventID)
            restart()
        }
    }

    private func update(_ value: JSONValue?) throws {
        guard case .object(let requested) = value else {
            throw ClientError(
                message: "session.update needs a 'session' object", code: "invalid_value", param: "session")
        }
        if let type = requested["type"], type != "transcription" {
            throw ClientError(
                message: "this server has transcription sessions only: session.type must be \"transcription\"",
                code: "invalid_value", param: "session.type")
        }
        var changed = configuration
        if case .object(let audio) = requested["audio"], case .object(let input) = audio["input"] {
            try Self.checkFormat(input["format"])
            if let transcription = input["transcription"] {
                guard case .object(let fields) = transcription else {
                    throw ClientError(
                        message: "audio.input.transcription must be an object", code: "invalid_value",
                        param: "session.audio.input.transcription")
                }
                if let model = fields["model"]?.string { changed.model = model }
                if let language = fields["language"] {
                    changed.language = language.string.flatMap { $0.isEmpty ? nil : $0 }
                }
                if let prompt = fields["prompt"] { changed.prompt = prompt.string.flatMap { $0.isEmpty ? nil : $0 } }
            }
            if let turnDetection = input["turn_detection"] {
                changed.turnDetection = try Self.turnDetection(turnDetection, current: configuration.turnDetection)
            }
        }
        if changed.turnDetection != configuration.turnDetection {
            // A detector comes or goes: the turn under way is dropped, as at a clear.
            live = try Self.makeLive(engine, changed)
            clearPartial()
            item = nil
        } else {
            live.options = changed.options
        }
        configuration = changed
        send(["type": "session.updated", "session": session])
    }

    private static func checkFormat(_ value: JSONValue?) throws {
        guard let value else { return }
        guard case .object(let format) = value else {
            throw ClientError(
                message: "audio.input.format must be an object", code: "invalid_value",
                param: "session.audio.input.format")
        }
        if let type = format["type"], type != "audio/pcm" {
            throw ClientError(
                message: "audio.input.format.type \(type.canonical) is not supported; send audio/pcm (16-bit mono)",
                code: "invalid_value", param: "session.audio.input.format.type")
        }
        if let rate = format["rate"], rate != .number(Double(Self.rate)) {
            throw ClientError(
                message: "audio.input.format.rate \(rate.canonical) is not supported; PCM is at 24000 Hz",
                code: "invalid_value", param: "session.audio.input.format.rate")
        }
    }

    private static func turnDetection(_ value: JSONValue, current: Configuration.TurnDetection?) throws
        -> Configuration.TurnDetection?
    {
        let param = "session.audio.input.turn_detection"
        if value == .null { return nil }
        guard case .object(let fields) = value else {
            throw ClientError(message: "turn_detection is an object or null", code: "invalid_value", param: param)
        }
        guard fields["type"] == nil || fields["type"] == "server_vad" else {
            throw ClientError(
                message: "turn_detection.type must be server_vad (or turn_detection null, for manual commits)",
                code: "invalid_value", param: param + ".type")
        }
        var detection = current ?? .init()
        func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
            guard let field = fields[name], field != .null else { return nil }
            guard case .number(let value) = field, range.contains(value) else {
                throw ClientError(
                    message: "turn_detection.\(name) must be a number in \(range.lowerBound)...\(range.upperBound)",
                    code: "invalid_value", param: param + "." + name)
            }
            return value
        }
        if let threshold = try number("threshold", in: 0...1) { detection.threshold = threshold }
        if let padding = try number("prefix_padding_ms", in: 0...10000) { detection.prefixPaddingMs = Int(padding) }
        if let silence = try number("silence_duration_ms", in: 0...10000) { detection.silenceDurationMs = Int(silence) }
        return detection
    }

    private func append(_ value: JSONValue?) throws {
        guard let audio = value?.string else {
            throw ClientError(
                message: "input_audio_buffer.append needs 'audio' in base64", code: "invalid_value", param: "audio")
        }
        let limit = Int(Self.maximumAppendSeconds * Double(Self.rate)) * 2
        guard audio.utf8.count <= (limit + 2) / 3 * 4 else {
            throw ClientError(
                message: "one append carries \(Int(Self.maximumAppendSeconds)) s of audio at most; send smaller chunks",
                code: "input_audio_buffer_append_too_large", param: "audio")
        }
        guard let bytes = Data(base64Encoded: audio) else {
            throw ClientError(message: "'audio' is not base64", code: "invalid_value", param: "audio")
        }
        let seconds = Double(bytes.count) / Double(2 * Self.rate)
        let now = Date()
        credit = min(Self.maximumLead, credit + now.timeIntervalSince(lastAudio))
        lastAudio = now
        guard seconds <= credit else {
            throw ClientError(
                message: "audio is arriving faster than real time (more than \(Int(Self.maximumLead)) s ahead); "
                    + "this append was dropped", code: "input_audio_buffer_too_fast", param: "audio")
        }
        credit -= seconds
        relay(try live.append(Array(bytes)))
    }

    private func commit() throws {
        let events = try live.commit()
        guard !events.isEmpty else {
            throw ClientError(
                message: configuration.turnDetection == nil
                    ? "the buffer is empty: append audio before committing it"
                    : "no speech in the buffer to commit", code: "input_audio_buffer_commit_empty")
        }
        // Without a detector the engine reports no speech_stopped, whose mapping says committed.
        if configuration.turnDetection == nil { committed() }
        relay(events)
    }

    private func clear() {
        live.clear()
        clearPartial()
        item = nil
        send(["type": "input_audio_buffer.cleared"])
    }

    private func restart() {
        clearPartial()
        item = nil
        if let fresh = try? Self.makeLive(engine, configuration) { live = fresh }
    }

    // MARK: - Server events

    private func relay(_ events: [LiveTranscription.Event]) {
        for event in events {
            switch event {
            case .speechStarted(let at):
                send([
                    "type": "input_audio_buffer.speech_started", "audio_start_ms": .number((at * 1000).rounded()),
                    "item_id": .string(currentItem()),
                ])
            case .speechStopped(let at):
                send([
                    "type": "input_audio_buffer.speech_stopped", "audio_end_ms": .number((at * 1000).rounded()),
                    "item_id": .string(currentItem()),
                ])
                committed()
            case .final(let words):
                send([
                    "type": "conversation.item.input_audio_transcription.delta", "item_id": .string(currentItem()),
                    "content_index": 0, "delta": .string((itemHasText ? " " : "") + words),
                ])
                itemHasText = true
            case .partial(let text):
                // It may change, and an OpenAI delta can only add to the text: only on request.
                if partials { sendPartial(text) }
            case .completed(let text, let start, let end):
                clearPartial()
                send([
                    "type": "conversation.item.input_audio_transcription.completed", "item_id": .string(currentItem()),
                    "content_index": 0, "transcript": .string(text),
                    "usage": ["type": "duration", "seconds": .number(((end - start) * 1000).rounded() / 1000)],
                ])
                previousItem = item
                item = nil
            }
        }
    }

    private func sendPartial(_ text: String) {
        send([
            "type": "conversation.item.input_audio_transcription.partial", "item_id": .string(currentItem()),
            "content_index": 0, "text": .string(text),
        ])
        partialSent = text
    }

    /// The item's partial text gone, for a client that was sent some: the turn ended or was dropped.
    private func clearPartial() {
        guard partials, item != nil, !partialSent.isEmpty else { return }
        sendPartial("")
    }

    private func committed() {
        send([
            "type": "input_audio_buffer.committed", "item_id": .string(currentItem()),
            "previous_item_id": JSONValue(previousItem),
        ])
    }

    /// The turn's item, named when the turn first needs one.
    private func currentItem() -> String {
        if let item { return item }
        itemCount += 1
        let name = "item_\(itemCount)_" + Self.randomID().prefix(8)
        item = name
        itemHasText = false
        partialSent = ""
        return name
    }

    private var session: JSONValue {
        let turnDetection: JSONValue =
            configuration.turnDetection.map {
                [
                    "type": "server_vad", "threshold": .number($0.threshold),
                    "prefix_padding_ms": .number(Double($0.prefixPaddingMs)),
                    "silence_duration_ms": .number(Double($0.silenceDurationMs)),
                ]
            } ?? .null
        return [
            "type": "transcription", "object": "realtime.transcription_session", "id": .string(id),
            "audio": [
                "input": [
                    "format": ["type": "audio/pcm", "rate": .number(Double(Self.rate))],
                    "transcription": [
                        "model": .string(configuration.model), "language": JSONValue(configuration.language),
                        "prompt": JSONValue(configuration.prompt),
                    ],
                    "turn_detection": turnDetection, "noise_reduction": .null,
                ]
            ],
            "include": .null,
        ]
    }

    private func error(_ mistake: ClientError, eventID: String? = nil) {
        send([
            "type": "error",
            "error": [
                "type": .string(mistake.type), "code": .string(mistake.code), "message": .string(mistake.message),
                "param": JSONValue(mistake.param), "event_id": JSONValue(eventID),
            ],
        ])
    }

    private func send(_ event: JSONValue) {
        guard case .object(var members) = event else { return }
        sentEvents += 1
        members["event_id"] = .string("event_\(sentEvents)")
        try? connection.send(text: JSONValue.object(members).canonical)
    }

    private static func randomID() -> String {
        String((0..<16).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }
}

extension SpeechService {
    /// `GET /v1/realtime?intent=transcription`: the WebSocket of a ``RealtimeTranscription``.
    func realtime(_ request: HTTPRequest) throws -> HTTPResponse {
        guard request.query["intent"] == "transcription" else {
            throw HTTPError(
                400, "this server has transcription sessions only: connect with ?intent=transcription",
                param: "intent", code: "unsupported_intent")
        }
        let partials: Bool
        switch request.query["partials"] {
        case nil, "false": partials = false
        case "true": partials = true
        case let other?:
            throw HTTPError(
                400, "partials is true or false, not '\(other)'", param: "partials", code: "invalid_value")
        }
        let engine = transcription
        return try WebSocket.upgrade(request, protocols: [RealtimeTranscription.subprotocol]) { connection in
            do {
                try RealtimeTranscription(engine: engine, connection: connection, partials: partials).run()
            } catch {
                connection.close(.internalError, reason: "the transcriber cannot start: \(error)")
            }
        }
    }
}

extension RealtimeTranscription {
    /// The token a browser offers as the subprotocol `openai-insecure-api-key.TOKEN`, if any.
    static func subprotocolToken(_ request: HTTPRequest) -> String? {
        WebSocket.offeredProtocols(request).lazy.filter { $0.hasPrefix(tokenSubprotocolPrefix) }
            .map { String($0.dropFirst(tokenSubprotocolPrefix.count)) }.first { !$0.isEmpty }
    }
}
