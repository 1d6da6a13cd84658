import Foundation
import SpeakKit

/// Audio whose words the test knows, and a test-only recogniser that hears them: each word is a
/// burst of tone whose loudness names it. A burst that runs to the end of the audio it is handed
/// is heard as a fragment, as Whisper guesses at a word the window cuts short, so only a later
/// decode can agree on it and make it final.
final class ToneWords: Transcriber, @unchecked Sendable {
    static let rate = TranscriptionEngine.sampleRate
    static let vocabulary = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    static let wordSeconds = 0.3
    static let gapSeconds = 0.15
    static let amplitude = 3000

    /// Where a word is in a clip, in seconds.
    struct Spoken {
        var text: String
        var start: Double
        var end: Double
    }

    /// `lead` seconds of silence, then each turn's words with `pause` of silence after it.
    static func clip(_ turns: [[String]], lead: Double = 0.5, pause: Double = 1.5) -> (
        samples: [Int16], words: [Spoken]
    ) {
        var samples = silence(lead)
        var words: [Spoken] = []
        for turn in turns {
            for (index, word) in turn.enumerated() {
                let level = vocabulary.firstIndex(of: word)!
                let start = samples.count
                let peak = Double(amplitude * level)
                let step = 2 * Double.pi * 250 / Double(rate)
                samples += (0..<Int(wordSeconds * Double(rate))).map { Int16(peak * sin(Double($0) * step)) }
                words.append(Spoken(text: word, start: seconds(start), end: seconds(samples.count)))
                if index < turn.count - 1 { samples += silence(gapSeconds) }
            }
            samples += silence(pause)
        }
        return (samples, words)
    }

    static func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * Double(rate))) }

    static func seconds(_ samples: Int) -> Double { Double(samples) / Double(rate) }

    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        // The loudest sample of each 10 ms.
        let frame = audio.sampleRate / 100
        let peaks = stride(from: 0, to: audio.samples.count, by: frame).map { start in
            audio.samples[start..<min(audio.samples.count, start + frame)].map { abs(Int($0)) }.max() ?? 0
        }
        var words: [Transcript.Word] = []
        var index = 0
        while index < peaks.count {
            guard peaks[index] > Self.amplitude / 2 else {
                index += 1
                continue
            }
            let first = index
            var peak = 0
            while index < peaks.count, peaks[index] > Self.amplitude / 2 {
                peak = max(peak, peaks[index])
                index += 1
            }
            let level = min(Self.vocabulary.count - 1, Int((Double(peak) / Double(Self.amplitude)).rounded()))
            var text = Self.vocabulary[level]
            if index == peaks.count { text = String(text.prefix(2)) }
            words.append(Transcript.Word(start: Double(first) / 100, end: Double(index) / 100, text: text))
        }
        return Transcript(text: words.map(\.text).joined(separator: " "), duration: audio.duration, words: words)
    }
}
