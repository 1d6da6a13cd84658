/// Audio on its way to the transcriber, fed as it arrives: every front end's audio goes through
/// one, whether a file's decoded samples, Wyoming's `audio-chunk`s or a recording.
///
/// Raw PCM in any ``PCMFormat`` is converted to the transcribers' 16 kHz mono as it comes
/// (``PCMConverter``). Once more than
/// ``TranscriptionEngine/pieceSeconds`` are waiting, a piece is cut at the quietest moment near its
/// end and transcribed, so memory follows the piece, not the recording. Expected phrases are one
/// answer for the whole recording: it goes in one piece.
///
/// Made by ``TranscriptionEngine/stream(_:options:)``; ``finish()`` gives the transcript.
public struct TranscriptionStream: Sendable {
    public let format: PCMFormat
    /// Changeable until ``finish()``: it applies to the pieces not yet transcribed (in a short
    /// recording, all of it), as Wyoming's `transcribe` may name the language after the audio began.
    public var options: TranscriptionOptions
    /// The samples to expect in all, at 16 kHz, when known: the fraction done that
    /// ``TranscriptionOptions/progress`` is told.
    var expectedSamples: Int?
    private let transcriber: any Transcriber
    private var converter: PCMConverter
    /// Samples at 16 kHz not yet transcribed.
    private var pending: [Int16] = []
    /// Samples transcribed so far: where `pending` starts in the recording.
    private var transcribed = 0
    private var merged = Transcript(text: "", duration: 0)

    init(transcriber: any Transcriber, format: PCMFormat, options: TranscriptionOptions) {
        self.transcriber = transcriber
        self.format = format
        self.options = options
        converter = PCMConverter(format)
    }

    /// Seconds of audio taken so far.
    public var seconds: Double { seconds(adding: 0) }

    /// Seconds of audio taken, and `bytes` more would add: for a limit checked before a chunk is
    /// converted (a megabyte of 1 kHz 8-bit audio is 32 MB at 16 kHz).
    public func seconds(adding bytes: Int) -> Double {
        Double(transcribed + pending.count) / Double(TranscriptionEngine.sampleRate) + converter.seconds(adding: bytes)
    }

    /// Raw PCM in the stream's format. Transcribes the pieces it completes; the transcriber's
    /// errors pass as they are.
    public mutating func append(_ bytes: [UInt8]) throws { try take(converter.convert(bytes)) }

    /// Mono 16-bit samples at the format's rate (its `width` and `channels` are not used).
    public mutating func append(mono: [Int16]) throws { try take(converter.convert(mono: mono)) }

    /// The transcript of everything appended, its last samples included (a split frame at the end
    /// is dropped), times from the start of the recording. No audio at all is an empty transcript,
    /// and the transcriber is not asked.
    public mutating func finish() throws -> Transcript {
        try take(converter.finish())
        if !pending.isEmpty { try transcribe(pending.count) }
        merged.duration = Double(transcribed) / Double(TranscriptionEngine.sampleRate)
        return merged
    }

    /// The longest piece: five minutes, or the whole recording for expected phrases.
    private var pieceLength: Int {
        options.expectedPhrases == nil ? TranscriptionEngine.pieceSeconds * TranscriptionEngine.sampleRate : .max
    }

    /// Adds samples at 16 kHz; while more than a piece waits, one is cut and transcribed. A piece
    /// that holds the rest of the recording is never cut: only audio beyond it starts another.
    private mutating func take(_ samples: [Int16]) throws {
        pending += samples
        let length = pieceLength
        let rate = TranscriptionEngine.sampleRate
        let reach = TranscriptionEngine.cutReachSeconds * rate
        while pending.count > length {
            try transcribe(
                QuietCut.quietest(
                    in: max(1, length - reach)...(length - 1), near: length - reach / 2, of: pending,
                    window: QuietCut.window(rate)))
        }
    }

    /// Transcribes the first `count` pending samples as one piece.
    private mutating func transcribe(_ count: Int) throws {
        let rate = TranscriptionEngine.sampleRate
        let piece = PCMBuffer(sampleRate: rate, samples: Array(pending[..<count]))
        pending.removeFirst(count)
        var pieceOptions = options
        let progress = expectedSamples.flatMap { total in options.progress.map { (total, $0) } }
        if let (total, progress) = progress {
            let (done, length, whole) = (Double(transcribed), Double(count), Double(max(total, 1)))
            pieceOptions.progress = { fraction in progress((done + fraction * length) / whole) }
        }
        merged.append(try transcriber.transcribe(piece, options: pieceOptions), at: Double(transcribed) / Double(rate))
        transcribed += count
        if let (total, progress) = progress { progress(min(1, Double(transcribed) / Double(max(total, 1)))) }
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
