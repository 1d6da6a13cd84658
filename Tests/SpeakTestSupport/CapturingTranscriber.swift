import SpeakKit

/// A test-only transcriber that keeps every audio it is handed, to show what reaches a transcriber,
/// and hears `text` in all of it.
public final class CapturingTranscriber: Transcriber {
    public let text: String
    private let captured = Locked<[PCMBuffer]>([])

    public init(text: String = "heard") { self.text = text }

    /// The audio of every call so far, in order.
    public var heard: [PCMBuffer] { captured.withLock { $0 } }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        captured.withLock { $0.append(audio) }
        return Transcript(text: text, duration: audio.duration)
    }
}
