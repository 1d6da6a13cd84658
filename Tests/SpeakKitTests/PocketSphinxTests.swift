import Foundation
import Testing

@testable import SpeakKit
@testable import SpeakPocketSphinx

/// One decoder for the suite: loading the model is the slow part, and calls on it are serialised.
@Suite("pocketsphinx transcription", .serialized)
struct PocketSphinxTests {
    static let loaded: (transcriber: PocketSphinxTranscriber, seconds: Double) = {
        let start = Date()
        let transcriber = try! PocketSphinxTranscriber()
        return (transcriber, Date().timeIntervalSince(start))
    }()
    var transcriber: PocketSphinxTranscriber { Self.loaded.transcriber }
    static let catalog = try! VoiceCatalog(directories: [VoiceCatalog.shippedDirectory()!])

    /// `text` spoken by espeak-ng (22050 Hz), resampled to the model's 16 kHz, with a little silence around it.
    /// Spoken by a fresh worker process, so it is the same audio on every run: espeak-ng's sound
    /// depends on what its process spoke before (its noise is the process's `rand()`, its pitch
    /// flutter a static), and free dictation heard "The weather" as "whether" after other suites.
    static func speech(_ text: String, voice: String = "default") throws -> PCMBuffer {
        let worker = try WorkerPool(executable: WorkerPoolTests.executable, size: 1)
        defer { worker.shutdown() }
        var samples: [Int16] = []
        var rate = 22050
        try worker.synthesize(text, options: SpeechOptions(voice: catalog.voice(named: voice)), onProgress: nil) {
            samples += $0.samples
            rate = $0.sampleRate
        }
        var resampler = Resampler(inputRate: rate, outputRate: 16000)
        let pause = [Int16](repeating: 0, count: 4000)
        return PCMBuffer(sampleRate: 16000, samples: pause + resampler.process(samples) + resampler.finish() + pause)
    }

    func transcribe(_ audio: PCMBuffer, expect phrases: [String]? = nil) throws -> Transcript {
        let transcriber = transcriber  // loads the model outside the timing
        let start = Date()
        let transcript = try TranscriptionEngine(transcriber: transcriber).transcribe(
            audio, options: TranscriptionOptions(expectedPhrases: phrases))
        let seconds = Date().timeIntervalSince(start)
        print(
            "pocketsphinx: \(String(format: "%.2f", audio.duration)) s of audio "
                + "in \(String(format: "%.3f", seconds)) s, "
                + "real-time factor \(String(format: "%.3f", seconds / max(audio.duration, 0.001))) "
                + "(model load \(String(format: "%.2f", Self.loaded.seconds)) s): \(transcript.text.debugDescription)")
        return transcript
    }

    @Test("each expected answer is recognised exactly", arguments: ["yes", "no", "cancel"], ["default", "ava"])
    func expectedAnswer(answer: String, voice: String) throws {
        let transcript = try transcribe(Self.speech(answer, voice: voice), expect: ["yes", "no", "cancel"])
        #expect(transcript.text == answer)
        #expect(transcript.segments.map(\.text) == [answer])
    }

    @Test("a phrase of several words among the expected ones", arguments: ["default", "ava"])
    func expectedPhrase(voice: String) throws {
        let audio = try Self.speech("Deploy to production.", voice: voice)
        let transcript = try transcribe(audio, expect: ["Deploy to production", "roll back", "cancel"])
        #expect(transcript.text == "deploy to production")
        #expect(transcript.segments.map(\.text) == ["deploy", "to", "production"])
        // Word times are in order and inside the audio.
        let times = transcript.segments.flatMap { [$0.start, $0.end] }
        #expect(times == times.sorted() && times.allSatisfy { $0 >= 0 && $0 <= audio.duration + 0.02 }, "\(times)")
    }

    @Test("audio at another rate is resampled first, by the engine: the decoder takes 16 kHz only")
    func otherRate() throws {
        let synthesizer = try EspeakSynthesizer.shared()
        var audio = PCMBuffer(sampleRate: synthesizer.sampleRate)
        try synthesizer.synthesize("cancel", options: SpeechOptions(voice: VoiceCatalog.builtInDefault)) {
            audio.samples += $0
        }
        #expect(try transcribe(audio, expect: ["yes", "no", "cancel"]).text == "cancel")
        #expect(throws: PocketSphinxError.self) { try transcriber.transcribe(audio, options: TranscriptionOptions()) }
    }

    @Test("free dictation hears at least some of a simple sentence")
    func dictation() throws {
        let sentence = "The weather is nice today."
        let transcript = try transcribe(Self.speech(sentence))
        #expect(!transcript.text.isEmpty)
        let spoken = Set(sentence.lowercased().split { !$0.isLetter }.map(String.init))
        #expect(transcript.text.split(separator: " ").contains { spoken.contains(String($0)) }, "\(transcript.text)")
    }

    @Test("dictation still works after a grammar call: the search goes back to the language model")
    func backToDictation() throws {
        _ = try transcribe(Self.speech("yes"), expect: ["yes", "no"])
        let transcript = try transcribe(Self.speech("The weather is nice today."))
        #expect(transcript.text.split(separator: " ").count > 1, "\(transcript.text)")
    }

    @Test("silence gives an empty transcript", arguments: [nil, ["yes", "no", "cancel"]] as [[String]?])
    func silence(phrases: [String]?) throws {
        let transcript = try transcribe(
            PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 0, count: 32000)), expect: phrases)
        #expect(transcript.text == "")
        #expect(transcript.duration == 2)
    }

    @Test("words the dictionary lacks are refused, by name")
    func unknownWord() throws {
        let error = #expect(throws: PocketSphinxError.self) {
            try transcriber.transcribe(
                Self.speech("yes"),
                options: TranscriptionOptions(expectedPhrases: ["yes", "flibbertyzork now", "Qwxzv"]))
        }
        #expect(error?.unknownWords == ["flibbertyzork", "qwxzv"])
        #expect(error?.description.contains("flibbertyzork") == true)
        #expect(transcriber.unknownWords(in: ["Roll back!", "deploy"]) == [])
        // The failed call left the decoder usable.
        #expect(try transcribe(Self.speech("no"), expect: ["yes", "no"]).text == "no")
    }

    @Test("a pool: separate instances decode at the same time")
    func pool() throws {
        let second = try PocketSphinxTranscriber()
        let answers = ["yes", "no", "cancel", "yes", "no", "cancel"]
        let audio = try answers.map { try Self.speech($0) }
        let heard = Locked([String](repeating: "", count: answers.count))
        DispatchQueue.concurrentPerform(iterations: answers.count) { index in
            let instance = index % 2 == 0 ? transcriber : second
            let text =
                (try? instance.transcribe(
                    audio[index], options: TranscriptionOptions(expectedPhrases: ["yes", "no", "cancel"])))?.text
            heard.withLock { $0[index] = text ?? "error" }
        }
        #expect(heard.withLock { $0 } == answers)
    }

    @Test("phrases are lowercased and split at punctuation")
    func normalisation() {
        #expect(
            PocketSphinxTranscriber.normalise(["Yes!", " roll-back ", "don't", "", "YES"]) == [
                ["yes"], ["roll", "back"], ["don't"],
            ])
    }
}
