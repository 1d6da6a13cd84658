/// Files of any length in bounded memory: decoded a piece at a time into a ``TranscriptionStream``.
/// A file that fits in one piece is decoded once. A longer one is first decoded to its end without
/// keeping the samples, so audio past the limit is refused before any of it is transcribed and
/// progress knows the whole; then it is decoded again into the stream.
extension TranscriptionEngine {
    /// Five minutes: a long recording costs ~10 MB of samples at a time, and a 2 s answer is one piece.
    public static let pieceSeconds = 300
    /// How far before a piece's end its cut may move to fall into a pause. Among equally quiet
    /// moments (a long digital silence) the one nearest the middle of that reach is taken, away
    /// from the speech on either side.
    public static let cutReachSeconds = 30

    /// The transcript of the file open at `descriptor` (read from its start, twice if it is longer
    /// than a piece), times from the start of the file. Audio that does not decode, runs past
    /// `maximumSeconds` or under 0.01 s is an ``AudioFileError``; the transcriber's errors pass as
    /// they are.
    public func transcribe(descriptor: Int32, maximumSeconds: Int?, options: TranscriptionOptions) throws
        -> Transcript
    {
        let rate = Self.sampleRate
        func decoded() throws -> any DecodedAudioStream {
            try decoder.stream(descriptor: descriptor, sampleRate: rate, maximumSeconds: maximumSeconds)
        }
        let audio = try decoded()
        // One sample past a piece tells a file that needs more than one.
        let piece = Self.pieceSeconds * rate
        let first = try audio.read(upTo: piece + 1)
        let total = first.count > piece ? try decoded().skipToEnd() : first.count
        guard total >= rate / 100 else { throw AudioFileError.tooShort }
        var input = stream(.transcription, options: options)
        input.expectedSamples = total
        try input.append(mono: first)
        // The rest in reaches, so no more than a piece and a reach wait at once.
        while true {
            let more = try audio.read(upTo: Self.cutReachSeconds * rate)
            if more.isEmpty { break }
            try input.append(mono: more)
        }
        return try input.finish()
    }
}
