import SpeakKit

/// Tells a stretch of audio with something in it from steady sound: digital silence, hiss, a fan.
///
/// Whisper always writes something, and on steady noise it writes what it has heard most in
/// training ("you", "Thank you.", a sentence over and over) with full confidence (its
/// no-speech probability stays near zero), so such windows are not decoded at
/// all. The measure is relative: 50 ms frames are compared with the recording's quiet level (its
/// 10th percentile), so a quiet recording is judged as a loud one. Steady noise varies by under
/// 1 dB from frame to frame; a frame of speech at least as loud as the noise (+1 dB)
/// lifts the sum by the 3.5 dB needed, and stressed syllables are far louder than that.
struct SteadySound: Sendable {
    /// Frames of 50 ms, as the recorder measures levels.
    static let frameSeconds = 0.05
    /// How far above the quiet level a frame must be to count (1.5× the RMS: 3.5 dB).
    static let rise: Float = 1.5
    /// Below this RMS (-70 dBFS, about 10 steps of 16 bits) a frame is silence whatever the rest.
    static let silence: Float = 3e-4
    /// Frames that must rise above the quiet level: 0.1 s, the shortest sound the end-pointer
    /// takes for speech.
    static let framesNeeded = 2
    /// Steady frames in a row that make a pause a window ends at: 2 s.
    static let pauseFrames = 40

    /// Samples per frame, at the audio's own rate.
    let frame: Int
    /// Whether each frame, from the audio's first sample on, rises above the quiet level.
    private let loud: [Bool]
    /// The recording's quiet level: the 10th percentile of its frames' RMS, in 0...1.
    let quietLevel: Float

    init(_ audio: PCMBuffer) {
        let frame = Self.frameLength(rate: audio.sampleRate)
        let samples = audio.samples
        self.frame = frame
        let levels = stride(from: 0, to: samples.count, by: frame).map { start in
            Self.level(samples[start..<min(samples.count, start + frame)])
        }
        let sorted = levels.sorted()
        quietLevel = sorted.isEmpty ? 0 : sorted[sorted.count / 10]
        let threshold = max(Self.silence, quietLevel * Self.rise)
        loud = levels.map { $0 > threshold }
    }

    /// Where the next sound starts at or after sample `from` (at the audio's own rate): the first
    /// of ``framesNeeded`` frames in a row above the quiet level; `nil` if only steady sound follows.
    func nextSound(from: Int) -> Int? { firstRun(of: Self.framesNeeded, loud: true, from: from) }

    /// Where the next pause of ``pauseFrames`` steady frames starts at or after sample `from`;
    /// `nil` if there is none.
    func nextPause(from: Int) -> Int? { firstRun(of: Self.pauseFrames, loud: false, from: from) }

    /// The first sample of `count` frames in a row, from the frame holding sample `from` on, that
    /// are above the quiet level (`loud`) or not.
    private func firstRun(of count: Int, loud wanted: Bool, from: Int) -> Int? {
        var run = 0
        for index in min(max(0, from) / frame, loud.count)..<loud.count {
            run = loud[index] == wanted ? run + 1 : 0
            if run == count { return (index - count + 1) * frame }
        }
        return nil
    }

    static func frameLength(rate: Int) -> Int { max(1, Int(Double(rate) * frameSeconds)) }

    static func level(_ piece: ArraySlice<Int16>) -> Float {
        let sum = piece.reduce(0.0) { total, sample in total + Double(sample) * Double(sample) }
        return Float((sum / Double(max(1, piece.count))).squareRoot() / 32768)
    }
}
