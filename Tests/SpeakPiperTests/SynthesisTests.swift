import Foundation
import SpeakKit
import SpeakPocketSphinx
import Testing

@testable import SpeakPiper

/// The joe voice on the real model, as Scripts/install-piper installs it.
@Suite("Piper synthesis", .serialized)
struct SynthesisTests {
    static let sentence = "The nightly backup finished successfully."
    static let paragraph = [
        "The build finished without errors.", "All tests passed on the first try.",
        "The release notes are ready for review.", "Please check the deployment dashboard.",
        "The next build starts at noon.", "Have a good afternoon.",
    ]

    @Test("a sentence is speech of plausible length and level, at the model's sample rate")
    func plausible() throws {
        let chunks = try Joe.chunks(Self.sentence)
        #expect(!chunks.isEmpty)
        #expect(chunks.allSatisfy { $0.sampleRate == 22050 })
        let samples = chunks.flatMap(\.samples)
        let seconds = Double(samples.count) / 22050
        // Six words: about 2.5 s at Piper's pace; espeak-ng says it in 2.4 s.
        #expect(seconds > 1.5 && seconds < 4.5, "\(seconds) s")
        #expect(samples.rms > 2000 && samples.rms < 16000, "RMS \(samples.rms)")
        #expect(samples.map { abs(Int($0)) }.max()! > 20000)
    }

    @Test("the rate sets the pace; the volume the level")
    func rateAndVolume() throws {
        let slow = try Joe.pcm(Self.sentence, options: SpeechOptions(voice: Joe.voice, rate: 120))
        let fast = try Joe.pcm(Self.sentence, options: SpeechOptions(voice: Joe.voice, rate: 350))
        #expect(slow.duration > fast.duration * 1.6, "\(slow.duration) s against \(fast.duration) s")
        let quiet = try Joe.pcm(Self.sentence, options: SpeechOptions(voice: Joe.voice, volume: 50))
        let peak = quiet.samples.map { abs(Int($0)) }.max()!
        #expect(peak > 15000 && peak < 17000, "peak \(peak)")
    }

    @Test("each sentence is handed on as it is made, the first long before the last")
    func streams() throws {
        let chunks = try Joe.chunks(Self.paragraph.joined(separator: " "))
        // The first sentence in windows when the model is split, every other one whole.
        #expect(chunks.count >= Self.paragraph.count && chunks.count <= Self.paragraph.count + 2)
        let total = chunks.last!.at
        #expect(chunks[0].at < total / 2, "first after \(chunks[0].at) s of \(total) s")
    }

    @Test("throwing from a chunk stops synthesis: the rest of the text is never synthesised")
    func cancels() throws {
        struct Stop: Error {}
        let model = try Joe.synthesizer.model(for: Joe.voice)
        let before = model.generated.load(ordering: .relaxed)
        var chunks = 0
        #expect(throws: Stop.self) {
            try Joe.synthesizer.synthesize(
                Self.paragraph.joined(separator: " "), options: SpeechOptions(voice: Joe.voice), onProgress: nil
            ) { _ in
                chunks += 1
                throw Stop()
            }
        }
        #expect(chunks == 1)
        // The sentence handed on and at most the one being made ahead of it.
        #expect(model.generated.load(ordering: .relaxed) - before <= 2)
    }

    @Test("sentences join in the model's silence: no step, no click")
    func joins() throws {
        let chunks = try Joe.sentences(Self.paragraph.prefix(3).joined(separator: " "))
        #expect(chunks.count == 3)
        for (left, right) in zip(chunks, chunks.dropFirst()) {
            let window = Array(left.suffix(110)) + Array(right.prefix(110))  // 5 ms either side
            #expect(window.rms < 300, "RMS \(window.rms) around a join")
            let step = zip(window, window.dropFirst()).map { abs(Int($0) - Int($1)) }.max()!
            #expect(step < 1000, "a step of \(step) at a join")
            #expect(abs(Int(left.last!)) < 100 && abs(Int(right.first!)) < 100)
        }
    }

    @Test("pocketsphinx, given the test sentences as its grammar, hears each one back")
    func intelligible() throws {
        let transcriber = try PocketSphinxTranscriber()
        let phrases = [Self.sentence] + Self.paragraph
        let grammar = phrases.map { $0.lowercased().filter { $0.isLetter || $0 == " " } }
        for (text, expected) in zip(phrases, grammar) {
            let transcript = try TranscriptionEngine(transcriber: transcriber).transcribe(
                try Joe.pcm(text), options: TranscriptionOptions(expectedPhrases: grammar))
            #expect(transcript.text.lowercased() == expected, "\(text)")
        }
    }

    @Test("callers at once share one loaded model and each get their whole reply")
    func concurrent() throws {
        let first = try Joe.synthesizer.model(for: Joe.voice)
        let lengths = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let pcm = try? Joe.pcm(Self.sentence)
            lengths.withLock { $0.append(pcm?.samples.count ?? 0) }
        }
        #expect(try Joe.synthesizer.model(for: Joe.voice) === first)
        for length in lengths.withLock({ $0 }) {
            #expect(Double(length) / 22050 > 1.5 && Double(length) / 22050 < 4.5)
        }
    }
}
