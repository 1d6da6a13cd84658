/// Recordings of any length in bounded memory: decoded to the end once without keeping the
/// samples, so audio past the limit is refused before any of it is transcribed, then decoded again
/// and handed to the transcriber a piece of at most ``pieceSeconds`` at a time, each cut at the
/// quietest moment near its end. Memory follows the piece, not the file.
extension TranscriptionEngine {
    /// Five minutes: a long recording costs ~10 MB of samples at a time, and a 2 s answer is one piece.
    public static let pieceSeconds = 300
    /// How far before a piece's end its cut may move to fall into a pause. Among equally quiet
    /// moments (a long digital silence) the one nearest the middle of that reach is taken, away
    /// from the speech on either side.
    public static let cutReachSeconds = 30

    /// The transcript of the file open at `descriptor` (read from its start, twice), times from the
    /// start of the file. Audio that does not decode, runs past `maximumSeconds` or under 0.01 s is
    /// an ``AudioFileError``; the transcriber's errors pass as they are.
    public func transcribe(descriptor: Int32, maximumSeconds: Int?, options: TranscriptionOptions) throws
        -> Transcript
    {
        let rate = Self.sampleRate
        func stream() throws -> any DecodedAudioStream {
            try decoder.stream(descriptor: descriptor, sampleRate: rate, maximumSeconds: maximumSeconds)
        }
        let total = try stream().skipToEnd()
        guard total >= rate / 100 else { throw AudioFileError.tooShort }
        let audio = try stream()
        // Expected phrases are one answer for the whole recording: it goes in one piece.
        let pieceLength = options.expectedPhrases == nil ? Self.pieceSeconds * rate : total
        let reach = Self.cutReachSeconds * rate
        var merged = Transcript(text: "", duration: 0)
        var pending: [Int16] = []
        var start = 0
        while true {
            pending += try audio.read(upTo: pieceLength - pending.count)
            guard !pending.isEmpty else { break }
            // The first decode counted the samples: a piece that holds the rest is not cut.
            let isLast = pending.count < pieceLength || audio.samplesRead >= total
            let cut =
                isLast
                ? pending.count
                : QuietCut.quietest(
                    in: max(1, pieceLength - reach)...(pieceLength - 1), near: pieceLength - reach / 2, of: pending,
                    window: QuietCut.window(rate))
            let piece = PCMBuffer(sampleRate: rate, samples: Array(pending[..<cut]))
            pending.removeFirst(cut)
            var pieceOptions = options
            let progress = options.progress
            if let progress {
                let (done, length, whole) = (Double(start), Double(cut), Double(total))
                pieceOptions.progress = { fraction in progress((done + fraction * length) / whole) }
            }
            merged.append(try transcriber.transcribe(piece, options: pieceOptions), at: Double(start) / Double(rate))
            start += cut
            progress?(Double(start) / Double(total))
        }
        merged.duration = Double(start) / Double(rate)
        return merged
    }
}

extension Transcript {
    /// Adds a later piece's transcript, its times moved by `offset` seconds, where the piece starts.
    mutating func append(_ piece: Transcript, at offset: Double) {
        if !piece.text.isEmpty { text += text.isEmpty ? piece.text : " " + piece.text }
        segments += piece.segments.map { Segment(start: $0.start + offset, end: $0.end + offset, text: $0.text) }
        words += piece.words.map {
            Word(start: $0.start + offset, end: $0.end + offset, text: $0.text, probability: $0.probability)
        }
        language = language ?? piece.language
    }
}
