/// A transcriber that can tell, before any audio is recorded, which words of the expected phrases
/// (`--expect`) it cannot recognise, so a script's typo fails at once, not after the recording.
public protocol ExpectedPhraseChecking: Transcriber {
    func unknownWords(in phrases: [String]) -> [String]
}
