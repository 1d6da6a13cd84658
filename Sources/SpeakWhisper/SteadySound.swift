import SpeakKit

/// Tells a stretch of audio with something in it from steady sound: digital silence, hiss, a fan.
///
/// Whisper always writes something, and on steady noise it writes what it has heard most in
/// training ("you", "Thank you.", a sentence over and over) with full confidence (its
/// no-speech probability stayed under 1e-5 on 30 s of hiss), so such windows are not decoded at
/// all. The measure is relative: 50 ms frames are compared with the recording's quiet level (its
/// 10th percentile), so a quiet recording is judged as a loud one. Steady noise varies by under
/// 1 dB from frame to frame (hiss: 0.2 dB); a frame of speech at least as loud as the noise (+1 dB)
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

    /// The recording's quiet level: the 10th percentile of its frames' RMS, in 0...1.
    let quietLevel: Float

    init(_ audio: PCMBuffer) {
        var levels = Self.levels(audio.samples, rate: audio.sampleRate)
        levels.sort()
        quietLevel = levels.isEmpty ? 0 : levels[levels.count / 10]
    }

    /// Where the next sound starts at or after sample `from` (at the audio's own rate): the first
    /// of ``framesNeeded`` frames in a row above the quiet level; `nil` if only steady sound follows.
    func nextSound(in audio: PCMBuffer, from: Int) -> Int? {
        firstRun(of: Self.framesNeeded, loud: true, in: audio, from: from)
    }

    /// Where the next pause of ``pauseFrames`` steady frames starts at or after sample `from`;
    /// `nil` if there is none.
    func nextPause(in audio: PCMBuffer, from: Int) -> Int? {
        firstRun(of: Self.pauseFrames, loud: false, in: audio, from: from)
    }

    /// The first sample of `count` frames in a row from `from` on that are above the quiet level
    /// (`loud`) or not.
    private func firstRun(of count: Int, loud: Bool, in audio: PCMBuffer, from: Int) -> Int? {
        let threshold = max(Self.silence, quietLevel * Self.rise)
        let frame = Self.frameLength(rate: audio.sampleRate)
        var run = 0
        var start = max(0, from)
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + frame)
            run = (Self.level(audio.samples[start..<end]) > threshold) == loud ? run + 1 : 0
            if run == count { return start - (count - 1) * frame }
            start = end
        }
        return nil
    }

    static func frameLength(rate: Int) -> Int { max(1, Int(Double(rate) * frameSeconds)) }

    /// The RMS of each 50 ms frame (the last may be shorter), in 0...1.
    static func levels(_ samples: [Int16], rate: Int) -> [Float] {
        let frame = frameLength(rate: rate)
        return stride(from: 0, to: samples.count, by: frame).map { level(samples[$0..<min(samples.count, $0 + frame)]) }
    }

    static func level(_ piece: ArraySlice<Int16>) -> Float {
        let sum = piece.reduce(0.0) { total, sample in total + Double(sample) * Double(sample) }
        return Float((sum / Double(max(1, piece.count))).squareRoot() / 32768)
    }
}
