import Foundation
import SpeakKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failed remote transcription. The message is one line and never holds the API key. When
/// `isRetryable`, keep the recording and try again later.
public struct TranscriptionError: Error, CustomStringConvertible, Sendable {
    /// The HTTP status, when the upstream answered.
    public let status: Int?
    public let message: String
    /// Whether trying again later may succeed (429, 5xx, timeouts, connection failures).
    public let isRetryable: Bool

    public init(status: Int? = nil, message: String, isRetryable: Bool) {
        self.status = status
        self.message = message
        self.isRetryable = isRetryable
    }

    public var description: String {
        "transcription: \(message)" + (status.map { " (HTTP \($0))" } ?? "")
    }
}

/// Transcribes through a ``TranscriptionUpstream``, synchronously (the server calls it from
/// libmicrohttpd's threads). The recording goes up as MP3, 32 kbps mono 16 kHz: about 4 kB a second.
///
/// Groq's limits are checked here, before anything is sent: a recording shorter than 0.01 s is
/// refused; one whose MP3 would exceed `maxUploadBytes` (25 MB) is cut at its quietest moments into
/// pieces that fit, transcribed piece by piece and joined. Requests shorter than the 10 s Groq bills
/// at least are reported as notices by ``transcribeWithReport(_:options:)``.
public struct RemoteTranscriber: Transcriber {
    public let upstream: TranscriptionUpstream
    /// The largest MP3 file one request may carry.
    public let maxUploadBytes: Int
    public let maxAttempts: Int
    /// Seconds before the first retry; doubled for each retry after it.
    public let baseDelay: Double

    /// Groq's (and OpenAI's) file size limit, read as decimal megabytes to stay on the safe side.
    public static let defaultMaxUploadBytes = 25_000_000
    /// Groq's minimum file length.
    public static let minimumDuration = 0.01
    /// Groq bills every request as at least this many seconds.
    public static let minimumBilledDuration = 10.0
    static let uploadSettings = MP3Settings(sampleRate: 16000, bitrate: 32)
    /// LAME's start delay and final flush, in bytes, on top of the bit rate.
    static let encoderOverhead = 1024

    public init(
        upstream: TranscriptionUpstream, maxUploadBytes: Int = defaultMaxUploadBytes, maxAttempts: Int = 3,
        baseDelay: Double = 0.5
    ) {
        self.upstream = upstream
        self.maxUploadBytes = maxUploadBytes
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
    }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        try transcribeWithReport(audio, options: options).transcript
    }

    /// The upstream's languages are its own: none are claimed for it.
    public var about: TranscriberDescription? {
        TranscriberDescription(name: "an OpenAI-compatible transcription server", model: "upstream", languages: [])
    }

    /// The transcript, and notices worth showing the user: today, requests billed as longer than
    /// they are (OpenAI-compatible APIs only; another `speak serve` bills nothing).
    public func transcribeWithReport(
        _ audio: PCMBuffer, options: TranscriptionOptions
    ) throws(TranscriptionError) -> (transcript: Transcript, notices: [String]) {
        guard audio.sampleRate > 0, audio.duration >= Self.minimumDuration else {
            let length = audio.sampleRate > 0 ? String(format: "%.3f s", audio.duration) : "empty"
            let message = "the recording is too short to transcribe (\(length); at least \(Self.minimumDuration) s)"
            throw TranscriptionError(message: message, isRetryable: false)
        }
        let key = UpstreamHTTP.key(environment: upstream.keyEnvironment, file: upstream.keyFile)
        let url: URL
        do {
            // Translation is OpenAI's route on both: another speak serve answers it too.
            let path =
                options.translate
                ? "/v1/audio/translations" : upstream.api == .openai ? "/v1/audio/transcriptions" : "/api/transcribe"
            url = try UpstreamHTTP.endpoint(upstream.url, path)
        } catch {
            throw TranscriptionError(error)
        }
        let pieces = try encodedPieces(of: audio)
        let rate = Double(audio.sampleRate)
        var notices: [String] = []
        var texts: [String] = []
        var segments: [Transcript.Segment] = []
        for (index, (range, mp3)) in pieces.enumerated() {
            let label = pieces.count > 1 ? "piece \(index + 1) of \(pieces.count)" : nil
            let duration = Double(range.count) / rate
            if upstream.api == .openai, duration < Self.minimumBilledDuration {
                let what = label.map { "\($0) of the recording" } ?? "the recording"
                let seconds = String(format: "%.2f", duration)
                let billed = Int(Self.minimumBilledDuration)
                notices.append("\(what) is \(seconds) s; it is billed as \(billed) s, the minimum per request")
            }
            let timeout = upstream.timeout ?? Self.defaultTimeout(uploading: mp3.count)
            let request = self.request(url, mp3: mp3, options: options, key: key, timeout: timeout)
            let format = upstream.api == .openai ? upstream.responseFormat ?? .json : .json
            let piece: Transcript
            do {
                piece = try UpstreamHTTP.withRetries(maxAttempts: maxAttempts, baseDelay: baseDelay) {
                    () throws(UpstreamError) in
                    let (body, response) = try UpstreamHTTP.send(
                        request, timeout: timeout, key: key, explains: upstream.api == .speak)
                    return try Self.parse(body, response: response, format: format, key: key)
                }
            } catch {
                throw TranscriptionError(error, label: label)
            }
            let offset = Double(range.lowerBound) / rate
            if !piece.text.isEmpty { texts.append(piece.text) }
            segments += piece.segments.map { .init(start: $0.start + offset, end: $0.end + offset, text: $0.text) }
        }
        let transcript = Transcript(text: texts.joined(separator: " "), duration: audio.duration, segments: segments)
        // An OpenAI-compatible API only hears the phrases in the prompt; another speak serve has
        // matched them already (its `expect`).
        guard upstream.api == .openai, let phrases = options.expectedPhrases else { return (transcript, notices) }
        return (
            ExpectedPhrases.answer(transcript, among: phrases, tolerance: ExpectedPhrases.defaultTolerance), notices
        )
    }

    /// 60 s, plus the upload's time at 1 Mbit/s: a 25 MB piece on a slow uplink takes minutes.
    static func defaultTimeout(uploading bytes: Int) -> Double { 60 + Double(bytes) / 125_000 }

    func request(_ url: URL, mp3: Data, options: TranscriptionOptions, key: String?, timeout: Double) -> URLRequest {
        var form = MultipartForm()
        switch upstream.api {
        case .openai:
            form.field("model", upstream.model ?? TranscriptionUpstream.defaultModel)
            form.field("response_format", (upstream.responseFormat ?? .json).rawValue)
            // Whisper wants ISO 639-1 ("en"), where speak's voices say "en-us". OpenAI's translations
            // take no language.
            if !options.translate,
                let language = options.language?.split(whereSeparator: { $0 == "-" || $0 == "_" }).first
            {
                form.field("language", language.lowercased())
            }
            // Whisper's prompt steers spelling and vocabulary: the expected answers belong there.
            let prompt = [options.prompt, options.expectedPhrases.map { $0.joined(separator: ", ") }]
                .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            if !prompt.isEmpty { form.field("prompt", prompt) }
        case .speak:
            if let language = options.language { form.field("language", language) }
            // speak serve restricts recognition to these (its `expect` field), as `--expect` does here.
            if let phrases = options.expectedPhrases { form.field("expect", phrases.joined(separator: "|")) }
            if let prompt = options.prompt, !prompt.isEmpty { form.field("prompt", prompt) }
        }
        if let temperature = options.temperature { form.field("temperature", String(temperature)) }
        form.file("file", filename: "audio.mp3", contentType: "audio/mpeg", data: mp3)
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        // The exact timeout is the caller's deadline (see `UpstreamHTTP.send`); this one only bounds the socket.
        request.timeoutInterval = UpstreamHTTP.socketTimeout(timeout)
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        request.httpBody = form.finished()
        return request
    }

    private struct JSONReply: Decodable {
        struct Segment: Decodable {
            var start: Double
            var end: Double
            var text: String
        }
        var text: String
        var duration: Double?
        var segments: [Segment]?
    }

    /// A 200's body read as `format`; a reply that is not a transcript (a captive portal's HTML page,
    /// say) is not retried.
    static func parse(
        _ body: Data, response: HTTPURLResponse, format: TranscriptionUpstream.ResponseFormat, key: String?
    ) throws(UpstreamError) -> Transcript {
        let contentType = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        func notATranscript() -> UpstreamError {
            let message = "reply is not a transcript (Content-Type \(contentType.isEmpty ? "none" : contentType))"
            return UpstreamHTTP.failure(status: response.statusCode, message: message, isRetryable: false, key: key)
        }
        let trimmed = { (text: String) in text.trimmingCharacters(in: .whitespacesAndNewlines) }
        // JSON is read as JSON even when text was asked for: some local servers ignore the format.
        if format != .text || contentType.contains("json") {
            guard let reply = try? JSONDecoder().decode(JSONReply.self, from: body) else { throw notATranscript() }
            let segments = (reply.segments ?? []).map {
                Transcript.Segment(start: $0.start, end: $0.end, text: trimmed($0.text))
            }
            return Transcript(text: trimmed(reply.text), duration: reply.duration ?? 0, segments: segments)
        }
        guard !contentType.hasPrefix("text/html"), let text = String(data: body, encoding: .utf8) else {
            throw notATranscript()
        }
        return Transcript(text: trimmed(text), duration: 0)
    }
}

extension TranscriptionError {
    init(_ error: UpstreamError, label: String? = nil) {
        let message = label.map { "\($0): \(error.message)" } ?? error.message
        self.init(status: error.status, message: message, isRetryable: error.isRetryable)
    }
}
