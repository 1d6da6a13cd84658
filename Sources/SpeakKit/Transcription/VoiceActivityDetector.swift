import Glibc

/// Tells speech from silence in 16 kHz mono audio, a frame at a time, so a live transcription can
/// end a turn when the speaker pauses and keep silence away from the recogniser (Whisper invents
/// words in silence). Silero VAD is one; ``LevelDetector`` is the fallback that needs no model.
public protocol VoiceActivityDetector: AnyObject {
    /// Samples in each frame it judges.
    var frameLength: Int { get }
    /// How likely, 0...1, `frame` (``frameLength`` samples) is speech. A detector may carry state
    /// from one frame to the next.
    func speechProbability(_ frame: ArraySlice<Int16>) throws -> Double
    /// Forgets what came before: the next frame starts a new stretch of audio.
    func reset()
}

/// Makes a detector for each live session (a detector carries state from frame to frame), composed
/// once with the transcriber.
public struct VoiceActivity: Sendable {
    /// What `info` and `/ready` call it: "silero", "level".
    public let name: String
    public let make: @Sendable () throws -> any VoiceActivityDetector
    /// Why sessions get another detector than the one named (a model that cannot be used), once
    /// that is known; `/ready` shows it.
    public let problem: @Sendable () -> String?

    public init(
        name: String, problem: @escaping @Sendable () -> String? = { nil },
        make: @escaping @Sendable () throws -> any VoiceActivityDetector
    ) {
        self.name = name
        self.problem = problem
        self.make = make
    }

    /// ``LevelDetector``, which needs no model.
    public static let level = VoiceActivity(name: "level") { LevelDetector() }
}

/// Speech is anything louder than a level: right for a close microphone in a quiet room, and for
/// audio with digital silence between turns, without a model to load. Noise above the level counts
/// as speech, which is why a model-based detector is preferred where one is installed.
public final class LevelDetector: VoiceActivityDetector {
    public let frameLength = 512
    /// RMS in dB below full scale above which a frame is speech.
    public let threshold: Double

    public init(threshold: Double = -45) { self.threshold = threshold }

    public func speechProbability(_ frame: ArraySlice<Int16>) -> Double {
        var energy = 0.0
        for sample in frame { energy += Double(sample) * Double(sample) }
        let rms = (energy / Double(max(1, frame.count))).squareRoot() / 32768
        return rms > 0 && 20 * log10(rms) > threshold ? 1 : 0
    }

    public func reset() {}
}
