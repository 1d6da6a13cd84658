import SpeakKit

/// One recording (`audio-start` … `audio-stop`) fed to a live transcription as its chunks arrive,
/// and the live session's events as Wyoming's streaming transcript.
///
/// The order is the one the `wyoming` package's protocol description gives: `transcript-start`
/// before the first words; a `transcript-chunk` each time words become final; at the end the last
/// words, the whole `transcript` for clients that read only that, then `transcript-stop`. Final
/// words never change, so a chunk only appends: it carries the space before its words, and the
/// chunks joined with nothing between them are the transcript, as streaming clients such as
/// `wyoming-bench` join them. Partial text, which may change, is not sent: a chunk cannot take
/// words back.
///
/// With `voiceEvents`, `voice-started` and `voice-stopped` (`wyoming.vad`, milliseconds into the
/// recording) tell where the live session's detector heard each turn of speech begin and end.
final class LiveRecording {
    let format: PCMFormat
    private let live: LiveTranscription
    private let voiceEvents: Bool
    /// Bytes of audio taken, for the length limit (checked before a chunk is converted).
    private var bytes = 0
    /// Every chunk sent so far, joined.
    private(set) var text = ""
    private var started = false

    init(_ live: LiveTranscription, format: PCMFormat, voiceEvents: Bool) {
        self.live = live
        self.format = format
        self.voiceEvents = voiceEvents
    }

    /// The language the audio is in: `transcribe` may name it after the audio began.
    var language: String? {
        get { live.options.language }
        set { live.options.language = newValue }
    }

    /// Seconds of audio taken, and `count` more bytes would add.
    func seconds(adding count: Int) -> Double {
        Double((bytes + count) / format.frameBytes) / Double(format.sampleRate)
    }

    /// An `audio-chunk`'s PCM; the events to send for it. The transcriber's errors pass as they are.
    func append(_ payload: [UInt8]) throws -> [WyomingEvent] {
        bytes += payload.count
        return events(for: try live.append(payload))
    }

    /// `audio-stop`: the last words, the whole transcript, the end of the stream.
    func finish() throws -> [WyomingEvent] {
        var events = events(for: try live.finish())
        if !started { events.append(start()) }
        var data: [String: JSONValue] = ["text": .string(text)]
        if let language { data["language"] = .string(language) }
        return events + [WyomingEvent("transcript", data), WyomingEvent("transcript-stop")]
    }

    private func events(for live: [LiveTranscription.Event]) -> [WyomingEvent] {
        live.flatMap { event -> [WyomingEvent] in
            switch event {
            case .final(let words) where !words.isEmpty:
                let chunk = text.isEmpty ? words : " " + words
                text += chunk
                return (started ? [] : [start()]) + [WyomingEvent("transcript-chunk", ["text": .string(chunk)])]
            case .speechStarted(let at) where voiceEvents: return [voice("voice-started", at: at)]
            case .speechStopped(let at) where voiceEvents: return [voice("voice-stopped", at: at)]
            default: return []
            }
        }
    }

    private func start() -> WyomingEvent {
        started = true
        return WyomingEvent("transcript-start", language.map { ["language": .string($0)] } ?? [:])
    }

    private func voice(_ type: String, at seconds: Double) -> WyomingEvent {
        WyomingEvent(type, ["timestamp": .number((seconds * 1000).rounded())])
    }
}
