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
    /// Audio coming in for transcription, between `audio-start` and `audio-stop`.
    private var recording: Recording?
    /// Set when a recording was refused as too long: its remaining chunks are dropped until its
    /// `audio-stop`, so they are never taken for a new recording and a partial transcript.
    private var discarding = false
    /// `transcribe`'s language, for the audio that follows.
    private var language: String?
    /// Encoded events not yet taken by the socket, from `sent` on.
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var synthesizing = false

    /// Samples in one `audio-chunk`, as wyoming-piper sends them.
    static let samplesPerChunk = 1024
    /// The rate `audio-start` names when a text made no audio at all.
    static let silentRate = 22050
    /// What Whisper and pocketsphinx take.
    static let transcriptionRate = 16000

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

    private struct Recording {
        let rate: Int
        /// Bytes per sample: 1 (unsigned, as in WAV and the `wyoming` package's converter), or 2 to 4
        /// (signed little-endian).
        let width: Int
        let channels: Int
        var resampler: Resampler
        var samples: [Int16] = []
        /// Bytes of a frame split across two chunks.
        var partial: [UInt8] = []

        init(rate: Int, width: Int, channels: Int) {
            self.rate = rate
            self.width = width
            self.channels = channels
            resampler = Resampler(inputRate: rate, outputRate: WyomingSession.transcriptionRate)
        }

        /// Seconds of audio held, and `bytes` more would add.
        func seconds(adding bytes: Int) -> Double {
            Double(samples.count) / Double(WyomingSession.transcriptionRate)
                + Double((partial.count + bytes) / (width * channels)) / Double(rate)
        }

        /// The sample at `offset` as 16 bits: its two most significant bytes.
        private func sample(_ bytes: [UInt8], at offset: Int) -> Int {
            if width == 1 { return (Int(bytes[offset]) - 128) << 8 }
            let top = offset + width - 1
            return Int(Int16(bitPattern: UInt16(bytes[top - 1]) | UInt16(bytes[top]) << 8))
        }

        mutating func append(_ bytes: [UInt8]) {
            let frameBytes = width * channels
            let all = partial + bytes
            let frames = all.count / frameBytes
            partial = Array(all[(frames * frameBytes)...])
            var mono = [Int16](repeating: 0, count: frames)
            for frame in 0..<frames {
                var sum = 0
                for channel in 0..<channels { sum += sample(all, at: frame * frameBytes + channel * width) }
                mono[frame] = Int16(sum / channels)
            }
            samples += resampler.process(mono)
        }
    }

    /// The client made a mistake that the answer names; the connection goes on.
    private struct Refusal: Error {
        var text: String
        var code: String
    }

    /// The connection cannot go on (the client left, or audio was cut off mid-text).
    private struct Closing: Error {}

    init(descriptor: Int32, service: WyomingService) {
        self.descriptor = descriptor
        self.service = service
        reader = EventReader(descriptor: descriptor, limits: service.limits)
    }

    func run() {
        while true {
            do {
                guard let event = try reader.next() else { return }
                try handle(event)
            } catch let error as WyomingReadError {
                if error == .idle || error == .truncated { return }
                guard (try? send(.error(error.description, code: error.code))) != nil, error.keepsConnection else {
                    return
                }
            } catch let refusal as Refusal {
                guard (try? send(.error(refusal.text, code: refusal.code))) != nil else { return }
            } catch {
                return
            }
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
            let text = event.string("text") ?? ""
            try checkLength(text.count)
            try speakWhole(text, voice: try voice(event.object("voice")), ssml: event.string("text_format") == "ssml")
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
            if var current = stream, let last = current.ssml ? current.markup : current.splitter.finish() {
                try speakSentence(last)
            }
            stream = nil
            refusedStream = false
            try send(WyomingEvent("synthesize-stopped"))
        case "transcribe":
            language = event.string("language")
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
            recording!.append(event.payload)
        case "audio-stop":
            // Refused audio had its error; no audio at all is an empty recording.
            guard !discarding else {
                discarding = false
                return
            }
            var finished = try recording ?? startRecording(WyomingEvent("audio-start"))
            recording = nil
            finished.samples += finished.resampler.finish()
            try transcribe(PCMBuffer(sampleRate: Self.transcriptionRate, samples: finished.samples))
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
        let engine = service.engine
        var chosen: Voice
        if case .string(let name)? = request?["name"] {
            do { chosen = try engine.voice(named: name) } catch {
                throw Refusal(text: error.description, code: "unknown-voice")
            }
            if case .string(let speaker)? = request?["speaker"] {
                guard let spoken = service.speakers.voice(chosen, speaker) else {
                    throw Refusal(text: "voice '\(chosen.name)' has no speaker '\(speaker)'", code: "unknown-speaker")
                }
                chosen = spoken
            }
        } else if case .string(let language)? = request?["language"] {
            guard let voice = engine.preferredVoice(forLanguage: language.replacingOccurrences(of: "_", with: "-"))
            else {
                throw Refusal(text: "no voice speaks '\(language)'", code: "unknown-voice")
            }
            chosen = voice
        } else {
            do { chosen = try engine.voice(named: nil) } catch {
                throw Refusal(text: error.description, code: "unknown-voice")
            }
        }
        if case .failure(let problem)? = engine.availability(of: chosen) {
            throw Refusal(text: "voice '\(chosen.name)' cannot speak here: \(problem)", code: "voice-unavailable")
        }
        return chosen
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
        try synthesize(sentence, voice: current.voice, ssml: current.ssml, rate: &rate, started: &started)
        stream?.rate = rate
        if started { try send(WyomingEvent("audio-stop")) }
    }

    private func synthesize(_ text: String, voice: Voice, ssml: Bool, rate: inout Int?) throws {
        var started = false
        try synthesize(text, voice: voice, ssml: ssml, rate: &rate, started: &started)
    }

    /// Synthesises `text`, sending `audio-start` before the first audio (at `rate`, or the first
    /// chunk's, which `rate` then keeps) and the audio as `audio-chunk`s resampled to that rate.
    private func synthesize(_ text: String, voice: Voice, ssml: Bool, rate: inout Int?, started: inout Bool) throws {
        guard text.contains(where: { !$0.isWhitespace }) else { return }
        let request = SynthesisRequest(text: text, options: SpeechOptions(voice: voice, ssml: ssml), format: .wav)
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
            try flush(waiting: true)
        } catch let error as Closing {
            throw error
        } catch {
            // After audio-start, an audio-stop would pass the cut-off audio as complete: end instead.
            if sentStart {
                try? send(.error("cannot speak the text: \(error)", code: "synthesis-failed"))
                throw Closing()
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
    private func startRecording(_ event: WyomingEvent) throws -> Recording {
        // Absent, a field takes Wyoming's default; present, it must be a whole number.
        func field(_ key: String, _ absent: Int) -> Int? { event.data[key] == nil ? absent : event.integer(key) }
        let rate = field("rate", Self.transcriptionRate)
        let width = field("width", 2)
        let channels = field("channels", 1)
        guard let rate, let width, let channels, (1...4).contains(width), (1...8).contains(channels),
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
        return Recording(rate: rate, width: width, channels: channels)
    }

    private func transcribe(_ audio: PCMBuffer) throws {
        let requested = language
        language = nil
        guard !audio.samples.isEmpty else {
            return try send(transcript("", language: requested))
        }
        let result: Transcript
        do {
            result = try service.transcriber.transcribe(audio, options: TranscriptionOptions(language: requested))
        } catch {
            throw Refusal(text: "cannot transcribe: \(error)", code: "transcription-failed")
        }
        try send(transcript(result.text.trimmingWhitespace, language: result.language ?? requested))
    }

    private func transcript(_ text: String, language: String?) -> WyomingEvent {
        var data: [String: JSONValue] = ["text": .string(text)]
        if let language { data["language"] = .string(language) }
        return WyomingEvent("transcript", data)
    }

    // MARK: - Writing

    /// Sends `event`, waiting for the socket to take it; while a synthesis runs, only what the
    /// socket takes now, keeping the rest (``whileSynthesizing(_:)``).
    private func send(_ event: WyomingEvent) throws {
        outgoing += event.encoded
        try flush(waiting: !synthesizing)
    }

    /// Runs `body`, which holds a synthesis worker that every client shares: a client that reads
    /// slowly, or not at all, must not keep it. So its audio is sent as far as the socket takes it
    /// and kept in memory beyond that (bounded by the text limit), and sent once the worker is back.
    @discardableResult
    private func whileSynthesizing<Result>(_ body: () throws -> Result) throws -> Result {
        synthesizing = true
        defer { synthesizing = false }
        return try body()
    }

    /// Writes `outgoing` to the socket: all of it, or (not `waiting`) what the socket takes now.
    private func flush(waiting: Bool) throws {
        let flags = Int32(MSG_NOSIGNAL) | (waiting ? 0 : Int32(MSG_DONTWAIT))
        while sent < outgoing.count {
            let written = outgoing.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, flags)
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && !waiting && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            guard written > 0 else { throw Closing() }
            sent += written
        }
        if sent == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.count < 1 << 20)
            sent = 0
        } else if sent >= 1 << 20 {
            outgoing.removeFirst(sent)
            sent = 0
        }
    }
}
