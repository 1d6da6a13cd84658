import Foundation
import SpeakKit

/// One client's connection: reads events and answers them in order, on its own thread.
///
/// Synthesis runs on this thread too. A streaming client's later text waits in the socket while a
/// sentence is spoken, so the first sentence's audio goes out before the last one is synthesised.
final class WyomingSession {
    private let service: WyomingService
    private var reader: EventReader
    private let descriptor: Int32
    /// Text coming in pieces, between `synthesize-start` and `synthesize-stop`.
    private var stream: TextStream?
    /// The stream was refused (its error sent): its chunks, Home Assistant's whole-text synthesize
    /// and its stop get no more errors of their own, one mistake being one error.
    private var refusedStream = false
    /// Audio coming in for transcription, between `audio-start` and `audio-stop`: transcribed live
    /// as it comes, its final words sent as they settle (``LiveRecording``).
    private var recording: LiveRecording?
    /// Set when a recording was refused: its remaining chunks are dropped until its `audio-stop`,
    /// so they are never taken for a new recording and a partial transcript; that stop then ends
    /// the connection, as a client waiting for the transcript would otherwise wait for ever.
    private var discarding = false
    /// `transcribe`'s language, for the audio that follows.
    private var language: String?
    /// `transcribe`'s `vad_sensitivity`, as the seconds of quiet that end a turn of speech: the
    /// client relies on this server to hear where speech ends, so it is told (`voice-stopped`).
    private var turnSilence: Double?
    private var writer: EventWriter

    /// Samples in one `audio-chunk`, as wyoming-piper sends them.
    static let samplesPerChunk = 1024
    /// The rate `audio-start` names when a text made no audio at all.
    static let silentRate = 22050
    /// The rate of audio whose `audio-start` names none: Wyoming's default.
    static let defaultAudioRate = 16000

    private struct TextStream {
        var voice: Voice
        var ssml: Bool
        var splitter = SentenceSplitter()
        /// SSML is not split into sentences (a cut would unbalance its tags): it is spoken whole at the stop.
        var markup = ""
        var characters = 0
        /// Every sentence's audio goes out at the first one's rate.
        var rate: Int?
    }

    /// The client made a mistake that the answer names.
    private struct Refusal: Error {
        var text: String
        var code: String
        /// The client waits for an answer this error replaces: the audio of a plain `synthesize`,
        /// a `transcript`. Home Assistant's readers ignore `error` and read on to `audio-stop`,
        /// `transcript` or the end of the stream, so the connection ends after the error. Other
        /// refusals (a stream's, which ends with `synthesize-stopped`) leave it open.
        var endsRequest = false
    }

    /// The refused recording's `audio-stop` came: its error was sent, the connection ends.
    private struct EndOfRefusedRequest: Error {}

    init(descriptor: Int32, service: WyomingService, activity: ConnectionActivity? = nil) {
        self.descriptor = descriptor
        self.service = service
        reader = EventReader(descriptor: descriptor, limits: service.limits)
        reader.activity = activity
        writer = EventWriter(descriptor: descriptor)
    }

    func run() {
        while true {
            do {
                reader.inRequest = stream != nil || recording != nil || discarding
                guard let event = try reader.next() else { return }
                try handle(event)
            } catch let error as WyomingReadError {
                if error == .idle || error == .truncated { return }
                guard (try? send(.error(error.description, code: error.code))) != nil, error.keepsConnection else {
                    return
                }
            } catch let refusal as Refusal {
                guard (try? send(.error(refusal.text, code: refusal.code))) != nil else { return }
                if refusal.endsRequest { return endAfterError() }
            } catch is EndOfRefusedRequest {
                return endAfterError()
            } catch {
                return
            }
        }
    }

    /// Ends the connection once the error is out: sends the end of the stream, then reads what
    /// the client still sends until it closes too (or ``WyomingLimits/lingerSeconds``), since a
    /// close with unread input is a reset, which can destroy the error before the client reads it.
    private func endAfterError() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
        let until = monotonicSeconds() + service.limits.lingerSeconds
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        while case let left = until - monotonicSeconds(), left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 {
            guard scratch.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 else { return }
        }
    }

    private func handle(_ event: WyomingEvent) throws {
        switch event.type {
        case "describe": try send(service.info())
        case "ping": try send(WyomingEvent("pong", event.string("text").map { ["text": .string($0)] } ?? [:]))
        case "synthesize":
            // Home Assistant sends the whole text again inside a stream, for servers that do not stream.
            guard stream == nil else { return }
            // The one Home Assistant sends after a refused stream's chunks; another is answered.
            if refusedStream {
                refusedStream = false
                return
            }
            do {
                let text = event.string("text") ?? ""
                try checkLength(text.count)
                try speakWhole(
                    text, voice: try voice(event.object("voice")), ssml: event.string("text_format") == "ssml")
            } catch var refusal as Refusal {
                refusal.endsRequest = true
                throw refusal
            }
        case "synthesize-start":
            stream = nil
            // Refused until its voice is found: an unknown one leaves the stream refused.
            refusedStream = true
            stream = TextStream(voice: try voice(event.object("voice")), ssml: event.string("text_format") == "ssml")
            refusedStream = false
        case "synthesize-chunk":
            guard var current = stream else {
                if refusedStream { return }
                throw Refusal(text: "synthesize-chunk without synthesize-start", code: "no-stream")
            }
            let text = event.string("text") ?? ""
            current.characters += text.count
            guard current.characters <= service.limits.textCharacters else {
                stream = nil
                refusedStream = true
                throw Refusal(
                    text: "the stream's text is longer than \(service.limits.textCharacters) characters",
                    code: "text-too-long")
            }
            if current.ssml { current.markup += text }
            let sentences = current.ssml ? [] : current.splitter.add(text)
            stream = current
            for sentence in sentences { try speakSentence(sentence) }
        case "synthesize-stop":
            // The stream ends with synthesize-stopped even when its last sentence was refused.
            var refusal: Refusal?
            if var current = stream, let last = current.ssml ? current.markup : current.splitter.finish() {
                do { try speakSentence(last) } catch let refused as Refusal { refusal = refused }
            }
            stream = nil
            refusedStream = false
            if let refusal { try send(.error(refusal.text, code: refusal.code)) }
            try send(WyomingEvent("synthesize-stopped"))
        case "transcribe":
            language = event.string("language")
            recording?.language = language
            turnSilence = event.string("vad_sensitivity").map(Self.silence(sensitivity:))
        case "audio-start":
            discarding = false
            recording = nil
            recording = try startRecording(event)
        case "audio-chunk":
            if discarding { return }
            if recording == nil { recording = try startRecording(event) }
            // Checked before the chunk is converted: 8 MiB of 1 kHz 8-bit audio is half a gigabyte at 16 kHz.
            guard recording!.seconds(adding: event.payload.count) <= Double(service.limits.audioSeconds) else {
                recording = nil
                discarding = true
                throw Refusal(text: "more than \(service.limits.audioSeconds) s of audio", code: "audio-too-long")
            }
            let events: [WyomingEvent]
            do { events = try recording!.append(event.payload) } catch {
                recording = nil
                discarding = true
                throw Refusal(text: "cannot transcribe: \(error)", code: "transcription-failed")
            }
            for event in events { try send(event) }
        case "audio-stop":
            // Refused audio had its error; no audio at all is an empty recording.
            guard !discarding else {
                discarding = false
                throw EndOfRefusedRequest()
            }
            let finished = try recording ?? startRecording(WyomingEvent("audio-start"))
            recording = nil
            try transcribe(finished)
        default:
            break  // Events of other services (wake, intent, satellite…) are not ours to answer.
        }
    }

    // MARK: - Speech

    private func checkLength(_ characters: Int) throws {
        guard characters <= service.limits.textCharacters else {
            throw Refusal(
                text: "the text is longer than \(service.limits.textCharacters) characters", code: "text-too-long")
        }
    }

    /// The voice a `voice` object asks for: by name (and speaker), else the best for its language,
    /// else the default voice.
    private func voice(_ request: [String: JSONValue]?) throws -> Voice {
        func string(_ key: String) -> String? {
            if case .string(let value)? = request?[key] { value } else { nil }
        }
        let name = string("name")
        do {
            return try service.engine.resolveVoice(
                named: name, speaker: name == nil ? nil : string("speaker"), language: string("language"),
                speakerVoice: service.speakers.voice)
        } catch {
            let code =
                switch error {
                case .unknownVoice, .noVoiceForLanguage, .macVoiceUnspoken: "unknown-voice"
                case .unknownSpeaker: "unknown-speaker"
                case .unavailable: "voice-unavailable"
                }
            throw Refusal(text: error.description, code: code)
        }
    }

    /// One `audio-start` … `audio-stop` for the whole text, as Home Assistant reads to the first stop.
    private func speakWhole(_ text: String, voice: Voice, ssml: Bool) throws {
        var rate: Int?
        try synthesize(text, voice: voice, ssml: ssml, rate: &rate)
        if rate == nil { try send(audioStart(rate: Self.silentRate)) }
        try send(WyomingEvent("audio-stop"))
    }

    /// A finished sentence of a stream, in its own `audio-start` … `audio-stop` (as wyoming-piper
    /// does), at the stream's one rate.
    private func speakSentence(_ sentence: String) throws {
        guard let current = stream else { return }
        var rate = current.rate
        var started = false
        // After the stream's first sentence, its audio is under way: no hurry for this one's.
        try synthesize(
            sentence, voice: current.voice, ssml: current.ssml, continues: current.rate != nil, rate: &rate,
            started: &started)
        stream?.rate = rate
        if started { try send(WyomingEvent("audio-stop")) }
    }

    private func synthesize(_ text: String, voice: Voice, ssml: Bool, rate: inout Int?) throws {
        var started = false
        try synthesize(text, voice: voice, ssml: ssml, continues: false, rate: &rate, started: &started)
    }

    /// Synthesises `text`, sending `audio-start` before the first audio (at `rate`, or the first
    /// chunk's, which `rate` then keeps) and the audio as `audio-chunk`s resampled to that rate.
    private func synthesize(
        _ text: String, voice: Voice, ssml: Bool, continues: Bool, rate: inout Int?, started: inout Bool
    ) throws {
        guard text.contains(where: { !$0.isWhitespace }) else { return }
        var options = SpeechOptions(voice: voice, ssml: ssml)
        options.continuesReply = continues
        let request = SynthesisRequest(text: text, options: options, format: .wav)
        var resampler: Resampler?
        var sentStart = false
        do {
            try whileSynthesizing {
                try service.engine.synthesize(request) { chunk in
                    let outputRate = rate ?? chunk.sampleRate
                    rate = outputRate
                    if !sentStart {
                        try send(audioStart(rate: outputRate))
                        sentStart = true
                    }
                    if chunk.sampleRate == outputRate {
                        try sendAudio(chunk.samples, rate: outputRate)
                    } else {
                        if resampler == nil {
                            resampler = Resampler(inputRate: chunk.sampleRate, outputRate: outputRate)
                        }
                        try resampler!.process(chunk.samples).withUnsafeBufferPointer {
                            try sendAudio($0, rate: outputRate)
                        }
                    }
                }
            }
            if let tail = resampler?.finish(), let outputRate = rate {
                try tail.withUnsafeBufferPointer { try sendAudio($0, rate: outputRate) }
            }
            try writer.flush(waiting: true)
        } catch let error as EventWriter.Closed {
            throw error
        } catch {
            // After audio-start, an audio-stop would pass the cut-off audio as complete: end instead.
            if sentStart {
                try? send(.error("cannot speak the text: \(error)", code: "synthesis-failed"))
                throw EventWriter.Closed()
            }
            throw Refusal(text: "cannot speak the text: \(error)", code: "synthesis-failed")
        }
        started = started || sentStart
    }

    private func audioStart(rate: Int) -> WyomingEvent {
        WyomingEvent("audio-start", ["rate": .number(Double(rate)), "width": .number(2), "channels": .number(1)])
    }

    private func sendAudio(_ samples: UnsafeBufferPointer<Int16>, rate: Int) throws {
        let format: [String: JSONValue] = ["rate": .number(Double(rate)), "width": .number(2), "channels": .number(1)]
        var offset = 0
        while offset < samples.count {
            let end = min(offset + Self.samplesPerChunk, samples.count)
            var bytes = [UInt8](repeating: 0, count: (end - offset) * 2)
            for index in offset..<end {
                let sample = UInt16(bitPattern: samples[index])
                bytes[(index - offset) * 2] = UInt8(sample & 0xFF)
                bytes[(index - offset) * 2 + 1] = UInt8(sample >> 8)
            }
            try send(WyomingEvent("audio-chunk", format, payload: bytes))
            offset = end
        }
    }

    // MARK: - Transcription

    /// The recording an `audio-start` (or a first `audio-chunk`) describes. Refused, the rest of
    /// its audio is dropped up to its `audio-stop`: one error, not one per chunk.
    ///
    /// Every recording is transcribed live, not only a client's that reads the chunks: a client
    /// cannot say it does, and the protocol has a streaming server send them to every client, with
    /// the one `transcript` after them for clients that read only that (Home Assistant reads on to
    /// it, passing the rest). A client that sends its audio faster than real time (Home
    /// Assistant's HTTP speech-to-text, a file) costs about what one whole decode would:
    /// LiveTranscription catches up on fast-fed audio with fewer decodes, its window is bounded,
    /// and its detector keeps silence from the recogniser.
    private func startRecording(_ event: WyomingEvent) throws -> LiveRecording {
        // Absent, a field takes Wyoming's default; present, it must be a whole number.
        func field(_ key: String, _ absent: Int) -> Int? { event.data[key] == nil ? absent : event.integer(key) }
        let rate = field("rate", Self.defaultAudioRate)
        let width = field("width", 2)
        let channels = field("channels", 1)
        guard let rate, let width, let channels, PCMFormat.widths.contains(width), (1...8).contains(channels),
            (1000...384_000).contains(rate)
        else {
            discarding = true
            let given = ["width", "channels", "rate"].map { "\($0) \(event.data[$0]?.canonical ?? "unset")" }
            throw Refusal(
                text:
                    "audio must be PCM of width 1 to 4 bytes, 1 to 8 channels, 1000 to 384000 Hz; "
                    + "got \(given.joined(separator: ", "))",
                code: "unsupported-audio")
        }
        let format = PCMFormat(sampleRate: rate, width: width, channels: channels)
        var settings = LiveTranscription.Settings()
        if let turnSilence { settings.silence = turnSilence }
        do {
            let live = try service.transcription.live(
                format, options: TranscriptionOptions(language: language), settings: settings)
            return LiveRecording(live, format: format, voiceEvents: turnSilence != nil)
        } catch {
            discarding = true
            throw Refusal(text: "cannot transcribe: \(error)", code: "transcription-failed")
        }
    }

    /// Home Assistant's seconds of quiet for each `vad_sensitivity` (its assist pipeline's).
    static func silence(sensitivity: String) -> Double {
        switch sensitivity {
        case "aggressive": 0.25
        case "relaxed": 1.25
        default: 0.7
        }
    }

    /// The recording's last words and transcript, in the language `transcribe` named (before or
    /// during the audio); the next recording starts afresh.
    private func transcribe(_ recording: LiveRecording) throws {
        (language, turnSilence) = (nil, nil)
        let events: [WyomingEvent]
        do {
            events = try recording.finish()
        } catch {
            throw Refusal(text: "cannot transcribe: \(error)", code: "transcription-failed", endsRequest: true)
        }
        for event in events { try send(event) }
    }

    // MARK: - Writing

    private func send(_ event: WyomingEvent) throws(EventWriter.Closed) {
        try writer.send(event)
    }

    /// Runs `body`, which holds a synthesis worker that every client shares: meanwhile audio goes
    /// out only as far as the socket takes it (``EventWriter``).
    @discardableResult
    private func whileSynthesizing<Result>(_ body: () throws -> Result) throws -> Result {
        writer.synthesizing = true
        defer { writer.synthesizing = false }
        return try body()
    }
}
