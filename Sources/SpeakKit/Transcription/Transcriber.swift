/// Speech to text: local pocketsphinx or Whisper, or an upstream API, behind one interface.
///
/// Implementations may block for about the length of the audio; callers that serve many requests
/// keep a pool of transcribers rather than sharing one, unless the transcriber says it pools itself.
///
/// A transcriber takes 16 kHz mono only (``TranscriptionEngine/sampleRate``) and does no
/// conversion of its own: front ends call ``TranscriptionEngine``, which decodes and resamples
/// once. A local transcriber given another rate throws (``TranscriptionEngine/rateProblem(_:)``)
/// rather than resample a second time.
public protocol Transcriber: Sendable {
    /// Transcribes `audio`, which is at 16 kHz.
    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript

    /// What this transcriber is, for a front end to tell (Wyoming's `info`); `nil` from one that
    /// cannot transcribe at all (``UnavailableTranscriber``).
    var about: TranscriberDescription? { get }
}

extension Transcriber {
    public var about: TranscriberDescription? { nil }
}

/// A transcriber's name, model and languages, as it describes itself.
public struct TranscriberDescription: Sendable, Equatable {
    /// For people: the engine and what it hears ("CMU pocketsphinx, US English").
    public var name: String
    /// The model's name (`base`, `tiny.en`, `en-us`).
    public var model: String
    /// Lowercase language codes it hears (`en`, `ha`); empty when it does not say (an upstream).
    public var languages: [String]

    public init(name: String, model: String, languages: [String]) {
        self.name = name
        self.model = model
        self.languages = languages
    }
}

/// What the caller knows about the audio before it is transcribed.
public struct TranscriptionOptions: Sendable, Equatable {
    /// BCP 47 tag of the spoken language, e.g. `en-US`; `nil` lets the transcriber assume its own
    /// (Whisper detects it, and reports it in ``Transcript/language``).
    public var language: String?
    /// Text that may precede the audio or spell its vocabulary; a hint, ignored where unsupported.
    public var prompt: String?
    /// The only answers the speaker is expected to give (`--expect "yes|no|cancel"`). A transcriber
    /// that can constrain its search returns one of them, or an empty text.
    public var expectedPhrases: [String]?
    /// Sampling temperature, 0...1; `nil` is the transcriber's default. As in OpenAI's API, Whisper
    /// starts there and raises it when a decode fails its quality checks.
    public var temperature: Double?
    /// Fill ``Transcript/words`` with a time span for every word, where the transcriber can.
    public var wordTimestamps: Bool
    /// The text in English whatever language is spoken (Whisper's translate task, OpenAI's
    /// `/v1/audio/translations`). A recogniser that hears only English transcribes as it always does.
    public var translate: Bool
    /// A decode whose text will be revised (a live caption's, before its turn ends): a transcriber
    /// may hear less to answer sooner. Whisper's encoder then takes less silence after the audio,
    /// and a doubtful window is not decoded again at higher temperatures.
    public var interim = false
    /// Called from the transcribing thread with the fraction of the audio done, 0...1, for long
    /// audio transcribed in pieces. Not part of equality.
    public var progress: (@Sendable (Double) -> Void)?
    /// Called from the transcribing thread with each segment as soon as it is final, before the
    /// whole audio is done, by a transcriber that decodes in pieces (Whisper, per 30 s window).
    /// Not called with expected phrases (the answer is known only at the end). Not part of equality.
    public var onSegment: (@Sendable (Transcript.Segment) -> Void)?

    public init(
        language: String? = nil, prompt: String? = nil, expectedPhrases: [String]? = nil,
        temperature: Double? = nil, wordTimestamps: Bool = false, translate: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil,
        onSegment: (@Sendable (Transcript.Segment) -> Void)? = nil
    ) {
        self.language = language
        self.prompt = prompt
        self.expectedPhrases = expectedPhrases
        self.temperature = temperature
        self.wordTimestamps = wordTimestamps
        self.translate = translate
        self.progress = progress
        self.onSegment = onSegment
    }

    public static func == (a: TranscriptionOptions, b: TranscriptionOptions) -> Bool {
        a.language == b.language && a.prompt == b.prompt && a.expectedPhrases == b.expectedPhrases
            && a.temperature == b.temperature && a.wordTimestamps == b.wordTimestamps
            && a.translate == b.translate && a.interim == b.interim
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

    /// One word and when it was spoken, in seconds from the start of the audio.
    public struct Word: Sendable, Equatable {
        public var start: Double
        public var end: Double
        /// The word as heard, without the space before it; punctuation attached as transcribed.
        public var text: String
        /// The recogniser's confidence, 0...1, where it gives one.
        public var probability: Double?

        public init(start: Double, end: Double, text: String, probability: Double? = nil) {
            self.start = start
            self.end = end
            self.text = text
            self.probability = probability
        }
    }

    public var text: String
    /// Length of the audio transcribed, in seconds.
    public var duration: Double
    public var segments: [Segment]
    /// The language heard or assumed, as a lowercase code (`en`, `ha`), where the transcriber knows it.
    public var language: String?
    /// Every word with its times, when ``TranscriptionOptions/wordTimestamps`` asked for them.
    public var words: [Word]

    public init(text: String, duration: Double, segments: [Segment] = [], language: String? = nil, words: [Word] = []) {
        self.text = text
        self.duration = duration
        self.segments = segments
        self.language = language
        self.words = words
    }
}
