import Foundation
import SpeakKit
import Testing

@testable import SpeakWhisper

/// The real converted models, as Scripts/install-whisper installs them; a missing model fails the
/// tests that need it. Loaded once for the suite (the process shares each model anyway).
enum Models {
    static let tiny = Result { () throws(WhisperError) in try WhisperTranscriber(model: "tiny.en") }
    static let base = Result { () throws(WhisperError) in try WhisperTranscriber(model: "base") }
}

@Suite("whisper transcription", .serialized)
struct WhisperTranscriberTests {
    var tiny: WhisperTranscriber { get throws { try Models.tiny.get() } }
    var base: WhisperTranscriber { get throws { try Models.base.get() } }

    @Test(
        "clear sentences come back exactly",
        arguments: [
            "The deployment finished without errors.",
            "We will meet at the train station at noon.",
            "Call my sister when you arrive at the airport.",
            "The meeting has been moved to next Tuesday.",
        ])
    func clearSentence(sentence: String) throws {
        let transcript = try tiny.transcribe(Speech.clip(sentence), options: TranscriptionOptions())
        #expect(transcript.text == sentence)
        #expect(transcript.language == "en")
    }

    @Test("the multilingual model hears English and says so")
    func baseDetectsEnglish() throws {
        let sentence = "The meeting has been moved to next Tuesday."
        let transcript = try base.transcribe(Speech.clip(sentence), options: TranscriptionOptions())
        #expect(transcript.text == sentence)
        #expect(transcript.language == "en")
    }

    @Test("segment and word times increase and lie within the audio")
    func timestamps() throws {
        let audio = try Speech.clip("Remind me to buy milk and bread on the way home. Then call the plumber.")
        let transcript = try tiny.transcribe(audio, options: TranscriptionOptions(wordTimestamps: true))
        #expect(!transcript.segments.isEmpty)
        try Self.expectOrdered(transcript, within: audio.duration)
        #expect(transcript.words.count >= 12, "\(transcript.words.map(\.text))")
        #expect(transcript.words.map(\.text).joined(separator: " ") == transcript.text)
        #expect(transcript.words.allSatisfy { ($0.probability ?? -1) > 0 && ($0.probability ?? 2) <= 1 })
        // Words are not asked for: none.
        #expect(try tiny.transcribe(audio, options: TranscriptionOptions()).words.isEmpty)
    }

    static func expectOrdered(_ transcript: Transcript, within duration: Double) throws {
        for spans in [transcript.segments.map { ($0.start, $0.end) }, transcript.words.map { ($0.start, $0.end) }] {
            #expect(spans.allSatisfy { $0.0 >= 0 && $0.0 <= $0.1 && $0.1 <= duration }, "\(spans) in \(duration) s")
            #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 }, "\(spans)")
        }
    }

    @Test("the prompt reaches whisper: it spells an unusual name as the prompt does")
    func prompt() throws {
        let audio = try Speech.clip("I had lunch with Kaylee Brennan today.")
        let plain = try tiny.transcribe(audio, options: TranscriptionOptions())
        let prompted = try tiny.transcribe(audio, options: TranscriptionOptions(prompt: "Lunch with Caleigh Brennan."))
        #expect(!plain.text.contains("Caleigh"), "\(plain.text)")
        #expect(prompted.text.contains("Caleigh"), "\(prompted.text)")
    }

    @Test("the language reaches whisper: detected when not given, honoured when given")
    func language() throws {
        let audio = try Speech.clip("Guten Morgen. Wie geht es dir heute?", voice: "de")
        let detected = try base.transcribe(audio, options: TranscriptionOptions())
        #expect(detected.language == "de")
        #expect(detected.text.hasPrefix("Guten Morgen"), "\(detected.text)")
        // Told it is English, whisper writes something else for the same audio.
        let english = try base.transcribe(audio, options: TranscriptionOptions(language: "en-GB"))
        #expect(english.language == "en")
        #expect(Speech.words(english.text) != Speech.words(detected.text), "\(english.text)")
    }

    @Test("translation: German and French come back in English; an English-only model transcribes")
    func translate() throws {
        let german = try Speech.clip(
            "Guten Morgen. Das Wetter ist heute sehr schön, und wir gehen in den Park.", voice: "de")
        let translated = try base.transcribe(german, options: TranscriptionOptions(translate: true))
        #expect(Set(Speech.words(translated.text)).isSuperset(of: ["good", "morning", "park"]), "\(translated.text)")
        // The language is the one spoken.
        #expect(translated.language == "de")
        let french = try Speech.clip("Bonjour. Je voudrais un café, s'il vous plaît.", voice: "fr")
        let coffee = try base.transcribe(french, options: TranscriptionOptions(translate: true))
        #expect(Speech.words(coffee.text).contains("coffee"), "\(coffee.text)")
        let sentence = "The meeting has been moved to next Tuesday."
        #expect(
            try tiny.transcribe(Speech.clip(sentence), options: TranscriptionOptions(translate: true)).text == sentence)
    }

    @Test("languages the model cannot take are refused")
    func refusedLanguages() throws {
        let audio = try Speech.clip("Yes.")
        let englishOnly = #expect(throws: WhisperError.self) {
            try tiny.transcribe(audio, options: TranscriptionOptions(language: "ha"))
        }
        #expect(englishOnly?.kind == .invalidRequest)
        #expect(englishOnly?.parameter == "language")
        #expect(englishOnly?.description.contains("English-only") == true, "\(String(describing: englishOnly))")
        let unknown = #expect(throws: WhisperError.self) {
            try base.transcribe(audio, options: TranscriptionOptions(language: "xx-YY"))
        }
        #expect(unknown?.kind == .invalidRequest)
        // Hausa is one of Whisper's languages.
        #expect(try base.transcribe(audio, options: TranscriptionOptions(language: "ha")).language == "ha")
    }

    @Test("expected phrases: exactly one of them", arguments: ["yes", "no", "cancel"])
    func expectedPhrase(answer: String) throws {
        let options = TranscriptionOptions(expectedPhrases: ["yes", "no", "cancel"])
        // Not en-gb: tiny.en hears its "Cancel." as "Console." (measured; see the branch notes).
        for voice in ["en-us", "en-us+f3"] {
            let transcript = try tiny.transcribe(Speech.clip(answer.capitalized + ".", voice: voice), options: options)
            #expect(transcript.text == answer, "\(voice)")
            #expect(transcript.segments.map(\.text) == [answer])
        }
    }

    @Test("expected phrases: the words given are the answer's, not all that was heard")
    func expectedPhraseWords() throws {
        let options = TranscriptionOptions(expectedPhrases: ["yes please", "no"], wordTimestamps: true)
        let transcript = try tiny.transcribe(Speech.clip("Yes please, send the report."), options: options)
        #expect(transcript.text == "yes please")
        #expect(transcript.words.map { Speech.words($0.text) } == [["yes"], ["please"]], "\(transcript.words)")
    }

    @Test("expected phrases: something else is nothing")
    func unexpectedAnswer() throws {
        let options = TranscriptionOptions(expectedPhrases: ["yes", "no", "cancel"])
        let audio = try Speech.clip("The weather is lovely in the garden today.")
        let transcript = try tiny.transcribe(audio, options: options)
        #expect(transcript.text == "")
        #expect(transcript.segments.isEmpty)
        let phrase = TranscriptionOptions(expectedPhrases: ["Deploy to production", "Roll back", "Cancel"])
        #expect(try tiny.transcribe(Speech.clip("Roll back."), options: phrase).text == "Roll back")
    }

    @Test("more than 30 s is transcribed whole, in order, with progress")
    func longAudio() throws {
        let sentences = [
            "The first sentence is about the weather in the mountains.",
            "The second sentence talks about a train that left the station late.",
            "The third sentence is about a farmer at the market.",
            "The fourth sentence describes a long walk along the river.",
            "The fifth sentence is about a meeting that was moved to Tuesday.",
            "In the sixth sentence, the children play football in the park.",
            "The seventh sentence mentions a parcel that arrived this morning.",
            "The eighth sentence says that the deployment finished without errors.",
            "The ninth sentence asks someone to call the plumber tomorrow.",
            "The tenth and last sentence ends the recording.",
        ]
        let audio = try Speech.joined(sentences.map { try Speech.clip($0, pause: 0.6) })
        #expect(audio.duration > 40)
        let progress = ProgressLog()
        let transcript = try tiny.transcribe(
            audio, options: TranscriptionOptions(wordTimestamps: true, progress: { progress.add($0) }))
        // Every sentence's ordinal is heard, in order: nothing lost at the window joins, nothing
        // doubled. Written either way: beam search writes "1st" where greedy writes "first".
        let ordinals = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
        let digits = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"]
        let written = Dictionary(uniqueKeysWithValues: zip(digits, ordinals))
        let heard = Speech.words(transcript.text).map { written[$0] ?? $0 }
        #expect(heard.filter(ordinals.contains) == ordinals, "\(transcript.text)")
        for key in ["weather", "station", "farmer", "river", "meeting", "football", "parcel", "deployment", "plumber"] {
            #expect(heard.filter { $0 == key }.count == 1, "\(key) in \(transcript.text)")
        }
        // Both windows gave segments, the second's times offset by where it starts.
        #expect(transcript.segments.count >= 2)
        #expect(transcript.segments.contains { $0.start >= 28 })
        try Self.expectOrdered(transcript, within: audio.duration)
        #expect((transcript.segments.last?.end ?? 0) > audio.duration - 5)
        // Timed throughout: a sentence a segment after the first window too (the previous window's
        // text as a text-only prompt made the rest one segment, its words bunched at its start).
        let longest = transcript.segments.map { $0.end - $0.start }.max() ?? 0
        #expect(longest < 12, "\(transcript.segments.map { ($0.start, $0.end) })")
        let later = transcript.words.map(\.start).filter { $0 > 31 }
        #expect((later.max() ?? 0) - (later.min() ?? 0) > 5, "\(later)")
        let fractions = progress.values
        #expect(fractions.count >= 2 && fractions == fractions.sorted() && fractions.last == 1, "\(fractions)")
    }

    @Test("steady noise and silence alone are nothing, on both models")
    func noiseAlone() throws {
        let noise = Speech.noise(seconds: 45, level: 30)
        let silence = PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 0, count: 10 * 16000))
        for transcriber in [try tiny, try base] {
            for audio in [noise, silence] {
                let transcript = try transcriber.transcribe(audio, options: TranscriptionOptions(wordTimestamps: true))
                #expect(transcript.text.isEmpty, "\(transcriber.model.name): \(transcript.text)")
                #expect(transcript.segments.isEmpty && transcript.words.isEmpty)
            }
        }
    }

    @Test("speech with long stretches of noise between: each sentence once, at its time")
    func speechBetweenNoise() throws {
        let first = "Call my sister when you arrive at the airport."
        let second = "We will meet at the train station at noon."
        let gap = PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 0, count: 20 * 16000))
        let audio = Speech.withNoise(Speech.joined([try Speech.clip(first), gap, try Speech.clip(second), gap]))
        for transcriber in [try tiny, try base] {
            let transcript = try transcriber.transcribe(audio, options: TranscriptionOptions())
            #expect(Speech.words(transcript.text) == Speech.words(first + " " + second), "\(transcriber.model.name)")
            let starts = transcript.segments.map(\.start)
            #expect(starts.first.map { $0 < 1 } == true && starts.last.map { $0 > 22 && $0 < 24 } == true, "\(starts)")
        }
    }

    @Test(
        "segments without a letter or digit are dropped; bracketed words are words",
        arguments: [
            ("...", true), (" - ", true), ("", true), ("Yes.", false), ("42", false), ("[Council]", false),
            ("Ça va ?", false), ("你好", false),
        ])
    func nonSpeech(text: String, expected: Bool) {
        #expect(WhisperTranscriber.isNonSpeech(text) == expected)
    }

    @Test("audio at another rate is resampled by the engine; whisper itself takes 16 kHz only")
    func otherRate() throws {
        let sentence = "We will meet at the train station at noon."
        let native = try Speech.native(sentence)
        #expect(native.sampleRate != 16000)
        #expect(
            try TranscriptionEngine(transcriber: tiny).transcribe(native, options: TranscriptionOptions()).text
                == sentence)
        #expect(throws: WhisperError.self) { try tiny.transcribe(native, options: TranscriptionOptions()) }
    }

    @Test("concurrent callers share a bounded pool of decoding states")
    func concurrentCallers() throws {
        let transcriber = try WhisperTranscriber(
            model: WhisperModel.find("tiny.en"), configuration: .init(maxConcurrentCalls: 2))
        let sentence = "The deployment finished without errors."
        let audio = try Speech.clip(sentence)
        let results = ProgressLog()
        DispatchQueue.concurrentPerform(iterations: 5) { _ in
            let text = (try? transcriber.transcribe(audio, options: TranscriptionOptions()))?.text
            results.add(text == sentence ? 1 : 0)
        }
        #expect(results.values == [1, 1, 1, 1, 1])
        #expect(transcriber.statesCreated <= 2)
        // The weights are loaded once per process: a second transcriber reuses them.
        #expect(try WhisperContext.shared(WhisperModel.find("tiny.en")) === WhisperContext.shared(transcriber.model))
    }
}

/// Values reported from other threads.
final class ProgressLog: Sendable {
    private let list = Locked<[Double]>([])
    func add(_ value: Double) { list.withLock { $0.append(value) } }
    var values: [Double] { list.withLock { $0 } }
}

@Suite("whisper threads")
struct WhisperThreadTests {
    @Test("threads: the cores shared among the calls, less the cores other work is running on")
    func threadChoice() {
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 1, othersRunning: 0, loadAverage: 3) == 2)
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 1, othersRunning: 1, loadAverage: 0.5) == 1)
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 1, othersRunning: 6, loadAverage: 6) == 1)
        #expect(WhisperTranscriber.threads(cores: 8, concurrentCalls: 3, othersRunning: 1, loadAverage: 2) == 2)
        #expect(WhisperTranscriber.threads(cores: 8, concurrentCalls: 1, othersRunning: 5, loadAverage: 5) == 3)
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 4, othersRunning: 0, loadAverage: 0) == 1)
        // Without the runnable count: the load average, one thread on a machine busier than its cores.
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 1, othersRunning: nil, loadAverage: 0.5) == 2)
        #expect(WhisperTranscriber.threads(cores: 2, concurrentCalls: 1, othersRunning: nil, loadAverage: 2.5) == 1)
    }

    @Test("others running: the runnable count in /proc/loadavg less the caller")
    func othersRunning() {
        #expect(RunnableTasks.othersRunning(loadAverage: Array("0.10 0.20 0.30 3/181 4567\n".utf8)) == 2)
        #expect(RunnableTasks.othersRunning(loadAverage: Array("0.00 0.00 0.00 1/90 12\n".utf8)) == 0)
        #expect(RunnableTasks.othersRunning(loadAverage: Array("0.10 0.20 0.30\n".utf8)) == nil)
        #expect(RunnableTasks.othersRunning(loadAverage: [UInt8]()) == nil)
        #expect((RunnableTasks.othersRunning() ?? -1) >= 0)
    }
}
