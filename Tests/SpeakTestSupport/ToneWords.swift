import Foundation
import SpeakKit

/// Audio whose words a test knows, and a test-only recogniser that hears them: each word is a burst
/// of tone whose loudness names it. A burst that runs to the end of the audio it is handed is heard
/// as a fragment (its first two letters), as Whisper guesses at a word the window cuts short, so only
/// a later decode can agree on it and make it final.
public final class ToneWords: Transcriber, Sendable {
    public static let rate = TranscriptionEngine.sampleRate
    /// The words a clip can hold; a word's loudness is its index times ``step``.
    public static let vocabulary = [
        "", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "hello", "world", "again", "today",
        "speak", "now", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ]
    static let step = 1300

    /// Where a word is in a clip, in seconds.
    public struct Spoken: Sendable {
        public var text: String
        public var start: Double
        public var end: Double
    }

    /// What one decode was handed.
    public struct Heard: Sendable {
        public var seconds: Double
        public var longestQuiet: Double
        /// Whether the decode was marked interim (its text to be revised).
        public var interim: Bool
        /// The text it was told came before its audio.
        public var prompt: String?
    }

    /// What the decodes were handed, and whether one heard a word cut short.
    private struct Record {
        var heard: [Heard] = []
        var heardCutWord = false
    }

    private let record = Locked(Record())
    public var heard: [Heard] { record.withLock { $0.heard } }
    public var heardCutWord: Bool { record.withLock { $0.heardCutWord } }
    /// Seconds each decode takes on `clock`.
    let cost: Double
    let clock: AudioClock?
    /// Seconds every second decode puts each word later, as Whisper's word times move between decodes.
    let drift: Double

    public init(cost: Double = 0, clock: AudioClock? = nil, drift: Double = 0) {
        self.cost = cost
        self.clock = clock
        self.drift = drift
    }

    /// `lead` seconds of silence, then each turn's words (0.25–0.39 s long, `gap` apart) with `pause`
    /// of silence after it.
    public static func clip(_ turns: [[String]], lead: Double = 1, pause: Double = 2, gap: Double = 0.12) -> (
        samples: [Int16], words: [Spoken]
    ) {
        var samples = silence(lead)
        var words: [Spoken] = []
        for turn in turns {
            for (index, word) in turn.enumerated() {
                let id = vocabulary.firstIndex(of: word)!
                let length = Int((0.25 + 0.02 * Double(id % 8)) * Double(rate))
                let start = samples.count
                samples += (0..<length).map {
                    Int16(Double(step * id) * sin(Double($0) * 2 * .pi * 300 / Double(rate)))
                }
                words.append(Spoken(text: word, start: seconds(start), end: seconds(samples.count)))
                if index < turn.count - 1 { samples += silence(gap) }
            }
            samples += silence(pause)
        }
        return (samples, words)
    }

    public static func silence(_ seconds: Double) -> [Int16] {
        [Int16](repeating: 0, count: Int(seconds * Double(rate)))
    }

    public static func seconds(_ samples: Int) -> Double { Double(samples) / Double(rate) }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        // The loudest sample of each 10 ms.
        let frame = audio.sampleRate / 100
        let peaks = stride(from: 0, to: audio.samples.count, by: frame).map { start in
            audio.samples[start..<min(audio.samples.count, start + frame)].map { abs(Int($0)) }.max() ?? 0
        }
        let loud = Self.step / 2
        var words: [Transcript.Word] = []
        var quiet = 0
        var longestQuiet = 0
        var index = 0
        var cutWord = false
        let shift = heard.count % 2 == 1 ? drift : 0
        while index < peaks.count {
            guard peaks[index] > loud else {
                quiet += 1
                longestQuiet = max(longestQuiet, quiet)
                index += 1
                continue
            }
            quiet = 0
            let first = index
            var peak = 0
            while index < peaks.count, peaks[index] > loud {
                peak = max(peak, peaks[index])
                index += 1
            }
            let id = min(Self.vocabulary.count - 1, Int((Double(peak) / Double(Self.step)).rounded()))
            var text = Self.vocabulary[id]
            if index == peaks.count {
                text = String(text.prefix(2))
                cutWord = true
            }
            words.append(
                Transcript.Word(start: Double(first) / 100 + shift, end: Double(index) / 100 + shift, text: text))
        }
        record.withLock {
            $0.heard.append(
                Heard(
                    seconds: audio.duration, longestQuiet: Double(longestQuiet) / 100, interim: options.interim,
                    prompt: options.prompt))
            if cutWord { $0.heardCutWord = true }
        }
        clock?.advance(by: cost)
        return Transcript(text: words.map(\.text).joined(separator: " "), duration: audio.duration, words: words)
    }
}
