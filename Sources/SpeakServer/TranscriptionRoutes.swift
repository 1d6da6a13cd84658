import Foundation
import SpeakKit

/// `POST /api/transcribe` (the mobile client's contract), OpenAI's `POST /v1/audio/transcriptions` and
/// `POST /v1/audio/translations` (the same, in English).
extension SpeechService {
    /// Groq's limit per file, and ours.
    static let maximumUploadBytes = 25 << 20
    static let transcriptionFormats = ["json", "text", "verbose_json", "srt", "vtt"]

    /// What a transcription request asks for, validated before the audio is decoded.
    struct TranscriptionOrder {
        var upload: UploadedFile
        var format: String
        var options: TranscriptionOptions
        /// `timestamp_granularities[]`: `segment`, `word`.
        var granularities: Set<String>
        /// `stream=true`: server-sent `transcript.text.delta` events, then `transcript.text.done`.
        var stream: Bool

        init(_ form: MultipartForm, translate: Bool = false) throws {
            guard let upload = form.files["file"] else {
                // curl's -F "file=<note.wav" sends the file's bytes as a plain field.
                let reason = form.fields["file"] != nil ? "must be a file upload, with a filename" : "is required"
                throw HTTPError(400, "the 'file' part \(reason)", param: "file")
            }
            self.upload = upload
            format = form.fields["response_format"] ?? "json"
            guard SpeechService.transcriptionFormats.contains(format) else {
                throw HTTPError(
                    400,
                    "response_format '\(format)' is not supported; use "
                        + SpeechService.transcriptionFormats.joined(separator: ", "),
                    param: "response_format")
            }
            // The SDK sends arrays as repeated `name[]` fields; curl users may leave out the brackets.
            granularities = Set(
                ["timestamp_granularities[]", "timestamp_granularities"].flatMap { form.allFields[$0] ?? [] })
            if let unknown = granularities.subtracting(["segment", "word"]).sorted().first {
                throw HTTPError(
                    400, "timestamp_granularities '\(unknown)' is not supported; use segment or word",
                    param: "timestamp_granularities")
            }
            let temperature = try form.fields["temperature"].map { text -> Double in
                guard let value = Double(text), (0...1).contains(value) else {
                    throw HTTPError(400, "temperature must be a number in 0...1, not '\(text)'", param: "temperature")
                }
                return value
            }
            switch form.fields["stream"]?.lowercased() {
            case nil, "false": stream = false
            case "true": stream = true
            case let other?: throw HTTPError(400, "stream must be true or false, not '\(other)'", param: "stream")
            }
            try Self.checkChunking(form)
            options = TranscriptionOptions(
                language: form.fields["language"].flatMap { $0.isEmpty ? nil : $0 }, prompt: form.fields["prompt"],
                expectedPhrases: form.fields["expect"].map {
                    $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                },
                temperature: temperature, wordTimestamps: granularities.contains("word"), translate: translate)
        }

        /// `chunking_strategy`: `auto`, or server VAD (`chunking_strategy[type]=server_vad`, or as a
        /// JSON object). Accepted; Whisper cuts long audio into its own 30 s windows either way.
        private static func checkChunking(_ form: MultipartForm) throws {
            var type = form.fields["chunking_strategy[type]"]
            if let value = form.fields["chunking_strategy"], value != "auto" {
                let object = try? JSONValue(parsing: value.utf8)
                if case .object(let members) = object { type = members["type"]?.string } else { type = value }
            }
            guard type == nil || type == "server_vad" else {
                throw HTTPError(
                    400, "chunking_strategy must be auto or {\"type\": \"server_vad\"}", param: "chunking_strategy")
            }
        }
    }

    func transcribe(_ request: HTTPRequest, openAI: Bool, translate: Bool = false) throws -> HTTPResponse {
        guard let form = request.form else {
            throw HTTPError(400, "send the audio as multipart/form-data with a 'file' part", code: "invalid_multipart")
        }
        let order = try TranscriptionOrder(form, translate: translate)
        if openAI && order.stream { return transcriptEvents(order) }
        return HTTPResponse(
            body: .deferred { [self] in
                do {
                    let transcript = try transcript(order.upload, options: order.options, openAI: openAI)
                    return openAI ? Self.render(transcript, order) : .json(["text": .string(transcript.text)])
                } catch {
                    return Self.transcriptionFailure(error).response
                }
            })
    }

    /// `stream=true`: a delta for each segment as the transcriber finishes it (Whisper's windows
    /// of 30 s; all at the end for a transcriber that does not decode in pieces), then the text.
    /// A failure before the first event is its own status, never a 200.
    private func transcriptEvents(_ order: TranscriptionOrder) -> HTTPResponse {
        HTTPResponse(
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
            body: .stream { [self] write in
                try withoutActuallyEscaping(write) { write in
                    let events = TranscriptEvents(write: write)
                    var options = order.options
                    options.onSegment = { events.delta($0.text) }
                    let transcript: Transcript
                    do { transcript = try self.transcript(order.upload, options: options, openAI: true) } catch {
                        throw Self.transcriptionFailure(error)
                    }
                    try events.finish(transcript.text)
                }
            })
    }

    /// The upload decoded and transcribed by the engine a piece at a time, as `speak transcribe`
    /// does, so a long recording costs a piece's memory, not its length's; the client's mistakes
    /// as ``HTTPError``s.
    private func transcript(_ upload: UploadedFile, options: TranscriptionOptions, openAI: Bool) throws -> Transcript {
        do {
            return try transcription.transcribe(
                file: upload.url, maximumSeconds: configuration.maximumAudioSeconds, options: options)
        } catch AudioFileError.tooShort {
            throw HTTPError(400, "the recording is shorter than 0.01 s", param: "file", code: "audio_too_short")
        } catch AudioFileError.tooLong(let limit) {
            throw HTTPError(
                413,
                "\(upload.filename ?? "the recording") is longer than \(limit) s, the most this server transcribes",
                param: "file", code: "audio_too_long")
        } catch let error as AudioFileError {
            // A part that says it is audio but does not decode is corrupt (400); anything
            // else is a kind of file we do not take: 415, but 400 on OpenAI's route, as OpenAI
            // answers ("Invalid file format"), so the openai package raises its BadRequestError.
            let claimsAudio =
                upload.contentType?.hasPrefix("audio/") == true || upload.contentType?.hasPrefix("video/") == true
                || ["mp3", "mp4", "mpeg", "mpga", "m4a", "wav", "webm", "ogg", "oga", "opus", "flac", "aac"]
                    .contains((upload.filename.map { ($0 as NSString).pathExtension.lowercased() }) ?? "")
            if case .notAudio = error, claimsAudio {
                throw HTTPError(
                    400, "\(upload.filename ?? "the file") is damaged or truncated: \(error)", param: "file",
                    code: "invalid_audio")
            }
            throw HTTPError(
                openAI ? 400 : 415,
                "\(upload.filename ?? "the file") is not audio we can decode (\(error)); "
                    + "send mp3, mp4, m4a, wav, webm, ogg or flac",
                param: "file", code: "unsupported_media")
        }
    }

    /// Every transcription error as an HTTP one: the client's mistakes 4xx, ours 5xx.
    static func transcriptionFailure(_ error: any Error) -> HTTPError {
        switch error {
        case let error as HTTPError: return error
        case let error as any TranscriptionRequestFault where error.requestFault != nil:
            // Words the recogniser cannot listen for, a language it does not know: the caller's to fix.
            let fault = error.requestFault!
            let code = fault.parameter == "language" ? "unsupported_language" : "unknown_words"
            return HTTPError(400, fault.message, param: fault.parameter, code: code)
        case let error as TranscriptionUnavailable:
            return HTTPError(503, String(describing: error), code: "transcriber_unavailable")
        default: return HTTPError(500, "transcription failed: \(error)", code: "transcription_failed")
        }
    }

    /// OpenAI's `usage` of a transcription: its length in whole seconds.
    static func usage(_ transcript: Transcript) -> JSONValue {
        ["type": "duration", "seconds": .number(transcript.duration.rounded(.up))]
    }

    /// OpenAI's response formats, from the transcriber's own segments: Whisper's phrases, or
    /// pocketsphinx's words. `words` are the word times asked for with `timestamp_granularities[]=word`.
    static func render(_ transcript: Transcript, _ order: TranscriptionOrder) -> HTTPResponse {
        switch order.format {
        case "text": return .text(transcript.text + "\n")
        case "verbose_json":
            var object: [String: JSONValue] = [
                "task": order.options.translate ? "translate" : "transcribe",
                "language": .string(transcript.language ?? order.options.language ?? "en"),
                "duration": .number(transcript.duration), "text": .string(transcript.text),
                "usage": usage(transcript),
            ]
            if order.granularities.isEmpty || order.granularities.contains("segment") {
                object["segments"] = .array(
                    transcript.cues.enumerated().map { index, segment in
                        [
                            "id": JSONValue(index), "seek": 0, "start": .number(segment.start),
                            "end": .number(segment.end), "text": .string(segment.text), "tokens": [],
                            "temperature": .number(order.options.temperature ?? 0),
                            "avg_logprob": 0, "compression_ratio": 0, "no_speech_prob": 0,
                        ]
                    })
            }
            if order.granularities.contains("word") {
                // pocketsphinx's segments are words already.
                let words =
                    transcript.words.isEmpty
                    ? transcript.segments.map { Transcript.Word(start: $0.start, end: $0.end, text: $0.text) }
                    : transcript.words
                // OpenAI's words carry no punctuation ("Yes," is "Yes"); one that is nothing else goes.
                object["words"] = .array(
                    words.compactMap { word -> JSONValue? in
                        let bare = word.text.trimmingCharacters(in: .punctuationCharacters)
                        return bare.isEmpty
                            ? nil : ["word": .string(bare), "start": .number(word.start), "end": .number(word.end)]
                    })
            }
            return .json(.object(object))
        case "srt":
            return HTTPResponse(
                headers: [("Content-Type", "application/x-subrip")], body: .data(Data(transcript.subRip.utf8)))
        case "vtt":
            return HTTPResponse(headers: [("Content-Type", "text/vtt")], body: .data(Data(transcript.webVTT.utf8)))
        // As whisper-1 answers: billed by the second, rounded up.
        default: return .json(["text": .string(transcript.text), "usage": usage(transcript)])
        }
    }
}

/// The SSE events of one streamed transcription, written from the transcribing thread only (the
/// stream's producer, which also calls the transcriber), so the writer needs no lock.
private final class TranscriptEvents: @unchecked Sendable {
    private let write: (Data) throws -> Void
    private var sent = false
    /// A write that failed (the client went away); the transcription runs on, and its end is not sent.
    private var failure: (any Error)?

    init(write: @escaping (Data) throws -> Void) { self.write = write }

    func delta(_ text: String) {
        guard failure == nil, !text.isEmpty else { return }
        do {
            try send(["type": "transcript.text.delta", "delta": .string(sent ? " " + text : text)])
            sent = true
        } catch { failure = error }
    }

    /// Sends the whole text as one delta if none went out, then `transcript.text.done`.
    func finish(_ text: String) throws {
        if let failure { throw failure }
        if !sent { delta(text) }
        if let failure { throw failure }
        try send(["type": "transcript.text.done", "text": .string(text)])
    }

    private func send(_ event: JSONValue) throws {
        try write(Data("data: ".utf8) + event.data + Data("\n\n".utf8))
    }
}
