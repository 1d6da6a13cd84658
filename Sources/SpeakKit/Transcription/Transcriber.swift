/// Speech to text: local pocketsphinx or an upstream API behind one interface.
///
/// Implementations may block for about the length of the audio; callers that serve many requests
/// keep a pool of transcribers rather than sharing one.
public protocol Transcriber: Sendable {
    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript
}

/// What the caller knows about the audio before it is transcribed.
public struct TranscriptionOptions: Sendable, Equatable {
    /// BCP 47 tag of the spoken language, e.g. `en-US`; `nil` lets the transcriber assume its own.
    public var language: String?
    /// Text that may precede the audio or spell its vocabulary; a hint, ignored where unsupported.
    public var prompt: String?
    /// The only answers the speaker is expected to give (`--expect "yes|no|cancel"`). A transcriber
    /// that can constrain its search returns one of them, or an empty text.
    public var expectedPhrases: [String]?

    public init(language: String? = nil, prompt: String? = nil, expectedPhrases: [String]? = nil) {
        self.language = language
        self.prompt = prompt
        self.expectedPhrases = expectedPhrases
    }
}

/// The text heard in a piece of audio. An empty `text` means nothing was recognised.
public struct Transcript: Sendable, Equatable {
    /// A stretch of the audio and the words heard in it, in seconds from the start of the audio.
    public struct Segment: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    public var text: String
    /// Length of the audio transcribed, in seconds.
    public var duration: Double
    public var segments: [Segment]

    public init(text: String, duration: Double, segments: [Segment] = []) {
        self.text = text
        self.duration = duration
        self.segments = segments
    }
}
