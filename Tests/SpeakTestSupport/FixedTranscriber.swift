import SpeakKit

/// A test-only transcriber that hears the same text in any audio and describes itself as told.
public struct FixedTranscriber: Transcriber {
    public let text: String
    public let about: TranscriberDescription?

    public static let standard = TranscriberDescription(name: "a fixed transcriber", model: "fixed", languages: ["en"])

    public init(text: String, about: TranscriberDescription? = standard) {
        self.text = text
        self.about = about
    }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        Transcript(text: text, duration: Double(audio.samples.count) / Double(max(audio.sampleRate, 1)))
    }
}
