import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakUpstream

/// Transcribes an audio file of any length in bounded memory: the file is first decoded to its end
/// without keeping the samples, so that audio past the limit is refused before any of it is
/// transcribed (``AudioFileError/tooLong(limitSeconds:)``, as `speak serve` refuses it), then
/// decoded again and handed to the transcriber a piece of at most ``pieceSeconds`` at a time, each
/// cut at the quietest moment near its end. Memory follows the piece, not the file.
struct PiecewiseTranscription {
    /// Five minutes: a long recording costs ~10 MB of samples at a time, and a 2 s answer is one piece.
    static let pieceSeconds = 300
    /// How far before a piece's end its cut may move to fall into a pause. Among equally quiet
    /// moments (a long digital silence) the one nearest the middle of that reach is taken, away
    /// from the speech on either side.
    static let cutReachSeconds = 30

    var transcriber: any Transcriber
    var options: TranscriptionOptions
    var maximumSeconds: Int
    var sampleRate = 16000

    /// The file's transcript, times from the start of the file. Audio that does not decode, is too
    /// long or too short is ``InputError`` 65 naming `name`; the transcriber's errors pass as they are.
    func transcribe(_ input: AudioFileInput, name: String) throws -> Transcript {
        func decoding<Result>(_ body: () throws -> Result) throws -> Result {
            do { return try body() } catch AudioFileError.tooLong(let limit) {
                let reason = "is longer than \(limit) s, the most speak transcribes (--max-duration allows more)"
                throw InputError(code: .dataError, message: "\(name) \(reason)")
            } catch let error as AudioFileError {
                throw InputError(code: .dataError, message: "\(name): \(error)")
            }
        }
        func decodingStream() throws -> MediaDecodingStream {
            try decoding {
                try MediaDecodingStream(
                    descriptor: input.descriptor, sampleRate: sampleRate, maximumSeconds: maximumSeconds)
            }
        }
        let total = try decoding { try decodingStream().skipToEnd() }
        guard total >= sampleRate / 100 else {
            throw InputError(code: .dataError, message: "\(name): shorter than 0.01 s")
        }
        let stream = try decodingStream()
        // Expected phrases are one answer for the whole recording: it goes in one piece.
        let pieceLength = options.expectedPhrases == nil ? Self.pieceSeconds * sampleRate : total
        let reach = Self.cutReachSeconds * sampleRate
        var merged = Transcript(text: "", duration: 0)
        var pending: [Int16] = []
        var start = 0
        while true {
            pending += try decoding { try stream.read(upTo: pieceLength - pending.count) }
            guard !pending.isEmpty else { break }
            // The first decode counted the samples: a piece that holds the rest is not cut.
            let isLast = pending.count < pieceLength || stream.samplesRead >= total
            let cut =
                isLast
                ? pending.count
                : RemoteTranscriber.quietest(
                    in: max(1, pieceLength - reach)...(pieceLength - 1), near: pieceLength - reach / 2, of: pending,
                    window: RemoteTranscriber.window(sampleRate))
            let piece = PCMBuffer(sampleRate: sampleRate, samples: Array(pending[..<cut]))
            pending.removeFirst(cut)
            var pieceOptions = options
            let progress = options.progress
            if let progress {
                let (done, length, whole) = (Double(start), Double(cut), Double(total))
                pieceOptions.progress = { fraction in progress((done + fraction * length) / whole) }
            }
            append(try transcriber.transcribe(piece, options: pieceOptions), at: start, to: &merged)
            start += cut
            progress?(Double(start) / Double(total))
        }
        merged.duration = Double(start) / Double(sampleRate)
        return merged
    }

    /// Adds a piece's transcript, its times moved by where the piece starts.
    private func append(_ piece: Transcript, at start: Int, to merged: inout Transcript) {
        let offset = Double(start) / Double(sampleRate)
        if !piece.text.isEmpty { merged.text += merged.text.isEmpty ? piece.text : " " + piece.text }
        merged.segments += piece.segments.map {
            Transcript.Segment(start: $0.start + offset, end: $0.end + offset, text: $0.text)
        }
        merged.words += piece.words.map {
            Transcript.Word(start: $0.start + offset, end: $0.end + offset, text: $0.text, probability: $0.probability)
        }
        merged.language = merged.language ?? piece.language
    }
}
