import Foundation
import SpeakKit
import SpeakMedia

/// `POST /api/transcribe` (the mobile client's contract) and OpenAI's `POST /v1/audio/transcriptions`.
extension SpeechService {
    /// Groq's limit per file, and ours.
    static let maximumUploadBytes = 25 << 20
    static let transcriptionFormats = ["json", "text", "verbose_json", "srt", "vtt"]

    func transcribe(_ request: HTTPRequest, openAI: Bool) throws -> HTTPResponse {
        guard let form = request.form else {
            throw HTTPError(400, "send the audio as multipart/form-data with a 'file' part", code: "invalid_multipart")
        }
        guard let upload = form.files["file"] else { throw HTTPError(400, "the 'file' part is required", param: "file") }
        let format = form.fields["response_format"] ?? "json"
        guard Self.transcriptionFormats.contains(format) else {
            throw HTTPError(400, "response_format '\(format)' is not supported; use \(Self.transcriptionFormats.joined(separator: ", "))", param: "response_format")
        }
        let options = TranscriptionOptions(
            language: form.fields["language"].flatMap { $0.isEmpty ? nil : $0 }, prompt: form.fields["prompt"],
            expectedPhrases: form.fields["expect"].map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } })
        return HTTPResponse(body: .deferred { [self] in
            do {
                let audio: PCMBuffer
                do {
                    audio = try MediaDecoder.decode(file: upload.url)
                } catch let error as AudioFileError {
                    // A part that says it is audio but does not decode is corrupt (400); anything
                    // else is a kind of file we do not take (415).
                    let claimsAudio = upload.contentType?.hasPrefix("audio/") == true || upload.contentType?.hasPrefix("video/") == true
                        || ["mp3", "mp4", "mpeg", "mpga", "m4a", "wav", "webm", "ogg", "oga", "opus", "flac", "aac"]
                            .contains((upload.filename.map { ($0 as NSString).pathExtension.lowercased() }) ?? "")
                    if case .notAudio = error, claimsAudio {
                        throw HTTPError(400, "\(upload.filename ?? "the file") is damaged or truncated: \(error)", param: "file", code: "invalid_audio")
                    }
                    throw HTTPError(415, "\(upload.filename ?? "the file") is not audio we can decode (\(error)); send mp3, mp4, m4a, wav, webm, ogg or flac", param: "file", code: "unsupported_media")
                }
                guard audio.duration >= 0.01 else { throw HTTPError(400, "the recording is shorter than 0.01 s", param: "file", code: "audio_too_short") }
                let transcript = try transcriber.transcribe(audio, options: options)
                return openAI ? Self.render(transcript, as: format, language: options.language) : .json(["text": transcript.text])
            } catch let error as HTTPError {
                return error.response
            } catch let error as any TranscriptionRequestFault where error.requestFault != nil {
                // Words the recogniser cannot listen for, a language it does not know: the caller's to fix.
                let fault = error.requestFault!
                let code = fault.parameter == "language" ? "unsupported_language" : "unknown_words"
                return HTTPError(400, fault.message, param: fault.parameter, code: code).response
            } catch let error as TranscriptionUnavailable {
                return HTTPError(503, String(describing: error), code: "transcriber_unavailable").response
            } catch {
                return HTTPError(500, "transcription failed: \(error)", code: "transcription_failed").response
            }
        })
    }

    /// OpenAI's response formats. A transcriber's segments are words (pocketsphinx) or phrases
    /// (Whisper); cues and `segments` get one phrase spanning the speech, `words` the word times.
    static func render(_ transcript: Transcript, as format: String, language: String?) -> HTTPResponse {
        let start = transcript.segments.first?.start ?? 0
        let end = transcript.segments.last?.end ?? transcript.duration
        switch format {
        case "text": return .text(transcript.text + "\n")
        case "verbose_json":
            return .json([
                "task": "transcribe", "language": language ?? "en", "duration": transcript.duration, "text": transcript.text,
                "segments": [["id": 0, "start": start, "end": end, "text": transcript.text]],
                "words": transcript.segments.map { ["word": $0.text, "start": $0.start, "end": $0.end] },
            ])
        case "srt":
            let cue = "1\n\(timestamp(start, ",")) --> \(timestamp(end, ","))\n\(transcript.text)\n"
            return HTTPResponse(headers: [("Content-Type", "application/x-subrip")], body: .data(Data(cue.utf8)))
        case "vtt":
            let cue = "WEBVTT\n\n\(timestamp(start, ".")) --> \(timestamp(end, "."))\n\(transcript.text)\n"
            return HTTPResponse(headers: [("Content-Type", "text/vtt")], body: .data(Data(cue.utf8)))
        default: return .json(["text": transcript.text])
        }
    }

    /// `00:01:02,345` (SRT) or `00:01:02.345` (WebVTT).
    static func timestamp(_ seconds: Double, _ separator: String) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let clock = String(format: "%02d:%02d:%02d", milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60)
        return clock + separator + String(format: "%03d", milliseconds % 1000)
    }
}
