import SpeakKit

/// How a Piper synthesizer cuts text and runs its models, set where the engines are composed
/// (from the environment: ``init(environment:)``) and handed to it; `init()` is the standard.
public struct PiperSettings: Sendable, Equatable {
    /// The most phoneme code points the model is given at once, at the normal rate: about 8 s of
    /// speech, some 28 words, so an ordinary sentence stays whole (Piper speaks a sentence at a
    /// time, and a cut between words is heard as a sentence ending there). Run-on text is cut, so
    /// the memory a run takes, which grows with the audio of its piece, is bounded by what such a
    /// sentence takes. Shorter pieces take less memory and cut more.
    public var pieceLimit: Int
    /// Pieces longer than this give back the arena memory they grew: run-on text (every piece near
    /// the piece limit) would otherwise leave the process as large as its largest run for good.
    public var shrinkAbove: Int
    /// Whether a split model decodes a reply's first sentence in windows, so it is heard sooner.
    public var streamsFirstSentence: Bool

    public init(pieceLimit: Int = 160, shrinkAbove: Int = 100, streamsFirstSentence: Bool = true) {
        self.pieceLimit = pieceLimit
        self.shrinkAbove = shrinkAbove
        self.streamsFirstSentence = streamsFirstSentence
    }

    /// `SPEAK_PIPER_PIECE`, `SPEAK_PIPER_SHRINK_ABOVE` and `SPEAK_PIPER_STREAM` over the standard.
    public init(environment: EnvironmentSettings) {
        let standard = PiperSettings()
        self.init(
            pieceLimit: environment.piperPiece ?? standard.pieceLimit,
            shrinkAbove: environment.piperShrinkAbove ?? standard.shrinkAbove,
            streamsFirstSentence: environment.piperStream)
    }
}
