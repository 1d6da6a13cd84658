/// Decides when an utterance has ended, from a stream of levels: speech is a level at or above
/// `threshold` for at least `minimumSpeech` seconds in a row; once speech was seen, `silence`
/// seconds below the threshold end it. With no speech within `noSpeechTimeout`, it gives up.
///
/// Pure logic on (level, duration) pairs, so it is tested on made-up sequences.
public struct EndPointer: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// Level (0...1, as `Recorder` measures it: RMS of the last 50 ms) that counts as speech.
        public var threshold: Double
        /// Seconds above the threshold, in a row, before it counts as speech (clicks and pops do not).
        public var minimumSpeech: Double
        /// Seconds of silence after speech that end the utterance.
        public var silence: Double
        /// Seconds to wait for any speech before giving up.
        public var noSpeechTimeout: Double

        public init(
            threshold: Double = 0.02, minimumSpeech: Double = 0.1, silence: Double = 1.0, noSpeechTimeout: Double = 5
        ) {
            self.threshold = threshold
            self.minimumSpeech = minimumSpeech
            self.silence = silence
            self.noSpeechTimeout = noSpeechTimeout
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Keep recording.
        case `continue`
        /// Speech was heard and then `silence` seconds of quiet: stop.
        case endOfSpeech
        /// Nothing above the threshold for long enough within `noSpeechTimeout`: stop.
        case noSpeech
    }

    public let settings: Settings
    /// Seconds observed so far.
    public private(set) var elapsed = 0.0
    /// Whether speech has been seen.
    public private(set) var heardSpeech = false
    private var loudRun = 0.0
    private var quietRun = 0.0

    public init(settings: Settings = .init()) {
        self.settings = settings
    }

    /// Takes the level of the next `duration` seconds of audio.
    public mutating func observe(level: Double, duration: Double) -> Decision {
        elapsed += duration
        if level >= settings.threshold {
            loudRun += duration
            quietRun = 0
            // A small tolerance: 5 periods of 20 ms add up to a hair under 0.1.
            if loudRun >= settings.minimumSpeech - 1e-9 { heardSpeech = true }
        } else {
            loudRun = 0
            quietRun += duration
        }
        if heardSpeech {
            return quietRun >= settings.silence - 1e-9 ? .endOfSpeech : .continue
        }
        return elapsed >= settings.noSpeechTimeout - 1e-9 ? .noSpeech : .continue
    }
}
