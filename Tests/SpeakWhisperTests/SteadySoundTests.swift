import SpeakKit
import Testing

@testable import SpeakWhisper

@Suite("steady sound")
struct SteadySoundTests {
    @Test("the quiet level is the noise's, and speech rises above it where it starts and stops")
    func soundAndPause() throws {
        let speech = try Speech.clip("The deployment finished without errors.", pause: 0)
        let lead = 5 * 16000
        let gap = [Int16](repeating: 0, count: lead)
        let audio = Speech.withNoise(PCMBuffer(sampleRate: 16000, samples: gap + speech.samples + gap + gap))
        let steady = SteadySound(audio)
        #expect(abs(steady.quietLevel * 32768 - 30) < 3, "\(steady.quietLevel * 32768)")
        let frame = steady.frame
        let sound = try #require(steady.nextSound(from: 0))
        #expect(abs(sound - lead) <= 2 * frame, "\(sound) for \(lead)")
        let pause = try #require(steady.nextPause(from: sound))
        // The pause starts where the speech ends (espeak-ng's own silence after it is steady too),
        // give or take the soft tail of its last word.
        let end = lead + (speech.samples.lastIndex { abs(Int($0)) > 100 } ?? 0)
        #expect(pause > end - 3 * frame && pause <= end + frame, "\(pause) for \(end)")
        // After the speech only noise: no more sound.
        #expect(steady.nextSound(from: pause) == nil)
        // Digital silence is steady too, and so is a recording of nothing at all.
        let silence = PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 0, count: 16000))
        #expect(SteadySound(silence).nextSound(from: 0) == nil)
        let empty = PCMBuffer(sampleRate: 16000, samples: [])
        #expect(SteadySound(empty).nextSound(from: 0) == nil)
    }
}
