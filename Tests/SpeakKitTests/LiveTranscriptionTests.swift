import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// Live transcription on audio whose words the test knows: each word is a tone burst whose loudness
/// names it, heard by ``ToneWords``, which like Whisper guesses at a word the window cuts
/// short. Times are the audio's own clock (how much had been fed when an event came), never the wall's.
@Suite("LiveTranscription: text while the person speaks")
struct LiveTranscriptionTests {
    @Test("words become final in order and never change; the first text shows within the first step")
    func finalWords() throws {
        let script = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"]
        let (samples, spoken) = ToneWords.clip([script])
        let recogniser = ToneWords()
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock)
        let finals = events.compactMap { entry -> (Double, String)? in
            if case .final(let text) = entry.event { return (entry.time, text) } else { return nil }
        }
        let completed = events.compactMap { entry -> String? in
            if case .completed(let text, _, _) = entry.event { return text } else { return nil }
        }
        #expect(completed == [script.joined(separator: " ")])
        #expect(finals.map(\.1).joined(separator: " ") == completed.first, "final text is only ever appended to")
        #expect(recogniser.heardCutWord, "some decode heard a word cut short, which must not have become final")
        // Each word final within two steps of being spoken (the decode that hears it whole, and
        // the next that agrees), give or take a detector frame and a chunk.
        let settings = LiveTranscription.Settings()
        var index = 0
        for (time, text) in finals {
            for _ in text.split(separator: " ") {
                let word = spoken[index]
                index += 1
                #expect(time - word.end <= 2 * settings.step + 0.1, "\(word.text) final \(time - word.end) s after")
            }
        }
        let start = try #require(events.first { if case .speechStarted = $0.event { true } else { false } })
        let firstText = try #require(
            events.first { if case .partial(let text) = $0.event { !text.isEmpty } else { false } })
        #expect(firstText.time - start.time <= settings.firstStep + 0.1, "first text at \(firstText.time) s")
    }

    @Test("word times that move between decodes lose no word and repeat none", arguments: [0.2, 0.3, -0.3])
    func driftingTimes(drift: Double) throws {
        let script = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "again", "today"]
        let (samples, _) = ToneWords.clip([script])
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: ToneWords(drift: drift), format: .transcription, detector: LevelDetector(),
            now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock)
        let finals = events.compactMap { entry -> String? in
            if case .final(let text) = entry.event { return text } else { return nil }
        }
        #expect(finals.joined(separator: " ") == script.joined(separator: " "))
        #expect(finals.count > 2, "words became final while the turn went on, not only at its end")
    }

    @Test("a language the session was not given is detected once a decode has heard enough, then kept")
    func languageKept() throws {
        let words = (0..<20).map { ToneWords.vocabulary[1 + $0 * 5 % 14] }
        let (samples, _) = ToneWords.clip([words, ["hello", "world"]])
        let recogniser = EnglishToneWords()
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        _ = try TestAudio.feed(samples, to: live, clock: clock)
        let asked = recogniser.asked.withLock { $0 }
        let settings = LiveTranscription.Settings()
        // Until a window of `languageAfter` seconds, each decode detects; every one after is told.
        let detecting = asked.prefix { $0.language == nil }
        #expect(detecting.count >= 2, "\(asked)")
        #expect(detecting.dropLast().allSatisfy { $0.seconds < settings.languageAfter }, "\(asked)")
        #expect(detecting.last!.seconds >= settings.languageAfter, "\(asked)")
        #expect(asked.count > detecting.count + 1, "decodes after it, in both turns: \(asked)")
        #expect(asked.dropFirst(detecting.count).allSatisfy { $0.language == "en" }, "\(asked)")
        #expect(live.options.language == "en")
    }

    @Test("a pause ends the turn, and the silence between turns never reaches the recogniser")
    func turns() throws {
        let (samples, spoken) = ToneWords.clip([["hello", "world"], ["speak", "again", "now"]], pause: 3)
        let recogniser = ToneWords()
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock).map(\.event)
        let settings = LiveTranscription.Settings()
        var started: [Double] = []
        var stopped: [Double] = []
        var completed: [String] = []
        for event in events {
            switch event {
            case .speechStarted(let at): started.append(at)
            case .speechStopped(let at): stopped.append(at)
            case .completed(let text, _, _): completed.append(text)
            default: break
            }
        }
        #expect(completed == ["hello world", "speak again now"])
        #expect(started.count == 2 && stopped.count == 2)
        for (turn, (first, last)) in [(spoken[0], spoken[1]), (spoken[2], spoken[4])].enumerated() {
            #expect(abs(started[turn] - (first.start - settings.padding)) < 0.05, "started \(started[turn])")
            #expect(abs(stopped[turn] - last.end) < 0.05, "stopped \(stopped[turn]) for \(last.end)")
        }
        let longestQuiet = recogniser.heard.map(\.longestQuiet).max() ?? 0
        #expect(longestQuiet <= settings.padding + 0.05, "a decode heard \(longestQuiet) s of silence")
        // The second turn's decodes are told what the first said; the first's, nothing.
        let prompts = recogniser.heard.map(\.prompt)
        #expect(prompts.first == .some(nil) && prompts.last == "hello world", "\(prompts)")
        #expect(Set(prompts) == [nil, "hello world"], "\(prompts)")
        // Each turn's last decode, which makes its words final, is not interim; those before it are.
        let interim = recogniser.heard.map(\.interim)
        #expect(interim.count(where: { !$0 }) == 2 && interim.last == false && interim.first == true, "\(interim)")
    }

    @Test("a speaker who never pauses: every decode hears a bounded window, and no word is lost")
    func boundedWindow() throws {
        let words = (0..<420).map { ToneWords.vocabulary[1 + $0 * 5 % 14] }
        let (samples, _) = ToneWords.clip([words], pause: 1)
        let recogniser = ToneWords()
        let settings = LiveTranscription.Settings()
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock).map(\.event)
        #expect(Double(samples.count) / Double(ToneWords.rate) > 150)
        let longest = recogniser.heard.map(\.seconds).max() ?? 0
        #expect(longest <= settings.maximumWindow + settings.step + 0.1, "a decode heard \(longest) s")
        let text = events.compactMap { if case .completed(let text, _, _) = $0 { text } else { nil } }
        #expect(text == [words.joined(separator: " ")])
    }

    @Test("without a detector a turn lasts until commit; clear drops it untranscribed")
    func manualTurns() throws {
        let (samples, _) = ToneWords.clip([["hello", "world"]], lead: 0.2, pause: 0.2)
        let recogniser = ToneWords()
        var settings = LiveTranscription.Settings()
        settings.firstStep = 100
        settings.step = 100
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: nil, settings: settings)
        let bytes = TestAudio.bytes(samples)
        #expect(try live.append(bytes).isEmpty && live.isSpeaking)
        live.clear()
        #expect(!live.isSpeaking && recogniser.heard.isEmpty)
        _ = try live.append(bytes)
        let events = try live.commit()
        #expect(
            events.last.map { if case .completed("hello world", _, _) = $0 { true } else { false } } == true,
            "\(events)")
        #expect(recogniser.heard.count == 1)
        #expect(try live.commit().isEmpty)
    }

    @Test("audio sent faster than real time is decoded at turn ends and to bound the window, words all kept")
    func fasterThanRealTime() throws {
        let turns = [["hello", "world"], ["speak", "again", "now"], ["the", "quick", "brown", "fox"]]
        let (samples, _) = ToneWords.clip(turns)
        let recogniser = ToneWords()
        // The wall clock stands still: all of it arrives at once.
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: { 0 })
        let events = try TestAudio.feed(samples, to: live).map(\.event)
        let completed = events.compactMap { if case .completed(let text, _, _) = $0 { text } else { nil } }
        #expect(completed == turns.map { $0.joined(separator: " ") })
        #expect(recogniser.heard.count == turns.count, "\(recogniser.heard.count) decodes")

        let speech = (0..<200).map { ToneWords.vocabulary[1 + $0 * 5 % 14] }
        let (long, _) = ToneWords.clip([speech], pause: 1)
        let whole = ToneWords()
        let session = LiveTranscription(
            transcriber: whole, format: .transcription, detector: LevelDetector(), now: { 0 })
        let text = try TestAudio.feed(long, to: session).compactMap {
            if case .completed(let text, _, _) = $0.event { text } else { nil }
        }
        #expect(text == [speech.joined(separator: " ")])
        let seconds = Double(long.count) / Double(ToneWords.rate)
        let maximum = LiveTranscription.Settings().maximumWindow
        #expect(Double(whole.heard.count) <= (seconds / (maximum - 1)).rounded(.up) + 1, "\(whole.heard.count) decodes")
        #expect(whole.heard.allSatisfy { $0.seconds <= maximum + 0.1 })
    }

    @Test("until a decode hears a word, the next comes after the first step, not the step")
    func soonerUntilHeard() throws {
        let words = (0..<12).map { ToneWords.vocabulary[1 + $0 * 5 % 14] }
        let (samples, _) = ToneWords.clip([words])
        let recogniser = HearsLate(deafDecodes: 2)
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock).map(\.event)
        let windows = recogniser.windows.withLock { $0 }
        let settings = LiveTranscription.Settings()
        let apart = zip(windows, windows.dropFirst()).map { $1 - $0 }
        #expect(apart.count > 4, "\(windows)")
        // The two decodes that heard nothing, and the one that first heard words, each came a first step on.
        for gap in apart.prefix(2) { #expect(abs(gap - settings.firstStep) < 0.05, "\(windows)") }
        // Once words were heard, a step apart (the turn's last decode comes at its end).
        for gap in apart.dropFirst(2).dropLast() { #expect(abs(gap - settings.step) < 0.05, "\(windows)") }
        let completed = events.compactMap { if case .completed(let text, _, _) = $0 { text } else { nil } }
        #expect(completed == [words.joined(separator: " ")])
    }

    @Test("a recogniser slower than the step waits for more speech between decodes, and keeps up")
    func slowRecogniser() throws {
        let words = (0..<30).map { ToneWords.vocabulary[1 + $0 * 5 % 14] }
        let (samples, _) = ToneWords.clip([words], pause: 1)
        let clock = AudioClock()
        let recogniser = ToneWords(cost: 2, clock: clock)
        let live = LiveTranscription(
            transcriber: recogniser, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(samples, to: live, clock: clock).map(\.event)
        let windows = recogniser.heard.map(\.seconds)
        #expect(windows.count > 2)
        // Every decode but the turn's last waited for half again its cost of new speech.
        for (before, after) in zip(windows, windows.dropFirst()).dropLast() {
            #expect(after - before >= 3 - 0.05, "decoded again after \(after - before) s")
        }
        // It kept up: the clock ran no further ahead of the audio than one decode's delay, twice over.
        #expect(clock.seconds - Double(samples.count) / Double(ToneWords.rate) <= 4.1, "\(clock.seconds) s")
        let completed = events.compactMap { if case .completed(let text, _, _) = $0 { text } else { nil } }
        #expect(completed == [words.joined(separator: " ")])
    }
}

/// ToneWords that says it heard English, noting the language each decode was asked for.
final class EnglishToneWords: Transcriber, Sendable {
    let words = Locked(ToneWords())
    let asked = Locked<[(language: String?, seconds: Double)]>([])

    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        asked.withLock { $0.append((options.language, audio.duration)) }
        var transcript = try words.withLock { try $0.transcribe(audio, options: options) }
        transcript.language = "en"
        return transcript
    }
}

/// ToneWords that hears nothing in its first decodes, as Whisper may in a fraction of a second of
/// speech, noting how much audio each decode was handed.
final class HearsLate: Transcriber, Sendable {
    let words = Locked(ToneWords())
    let windows = Locked<[Double]>([])
    let deafDecodes: Int

    init(deafDecodes: Int) { self.deafDecodes = deafDecodes }

    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        let count = windows.withLock {
            $0.append(audio.duration)
            return $0.count
        }
        let transcript = try words.withLock { try $0.transcribe(audio, options: options) }
        return count <= deafDecodes ? Transcript(text: "", duration: audio.duration) : transcript
    }
}
