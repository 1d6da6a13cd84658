import Foundation
import Testing

@testable import SpeakKit

@Suite("espeak-ng synthesis and voices")
struct SynthesisTests {
    let synthesizer = try! EspeakSynthesizer.shared()
    let catalog = try! VoiceCatalog(directories: [VoiceCatalog.shippedDirectory()!])

    func options(_ voice: String = "default") throws -> SpeechOptions {
        SpeechOptions(voice: try catalog.voice(named: voice))
    }

    @Test("PCM streams out in chunks while the text is still being synthesised")
    func streamsChunks() throws {
        var chunks = 0
        var progressWhenFirstChunk: Double?
        var lastProgress = 0.0
        try synthesizer.synthesize(
            "First sentence. Second sentence. Third sentence, the last one.", options: options(),
            onProgress: { lastProgress = $0 },
            onSamples: { samples in
                if chunks == 0 { progressWhenFirstChunk = lastProgress }
                chunks += 1
                #expect(samples.count > 0)
            })
        #expect(chunks > 10)
        // The first chunk arrived before synthesis had got through the text.
        #expect(try #require(progressWhenFirstChunk) < 0.5)
        #expect(lastProgress > 0.9)
    }

    @Test("an error thrown by the consumer stops synthesis and comes back")
    func consumerErrorStops() throws {
        struct Stop: Error {}
        var chunks = 0
        #expect(throws: Stop.self) {
            try synthesizer.synthesize("One. Two. Three. Four. Five. Six.", options: options()) { (_: PCMChunk) in
                chunks += 1
                throw Stop()
            }
        }
        #expect(chunks == 1)
    }

    /// espeak-ng's text reader keeps the character it read ahead (and SSML's state) between calls;
    /// only a synthesis resets it, so a synthesis stopped mid-text left it for the next phonemes.
    @Test("a synthesis stopped mid-text leaves nothing for the next phonemes to read")
    func stoppedSynthesisLeavesNoText() throws {
        struct Stop: Error {}
        let fresh = try synthesizer.phonemeClauses("The train leaves at seven.", voice: "en-us")
        for stopped in [
            "One. Two. Three. Tango.", "Hello there, Tom. Tomorrow, Tim.",
            "<speak>Ten <say-as interpret-as=\"characters\">TV</say-as> ten.</speak>",
        ] {
            var options = try options()
            options.ssml = stopped.hasPrefix("<speak>")
            #expect(throws: Stop.self) {
                try synthesizer.synthesize(stopped, options: options) { (_: PCMChunk) in throw Stop() }
            }
            let after = try synthesizer.phonemeClauses("The train leaves at seven.", voice: "en-us")
            #expect(after.map(\.phonemes) == fresh.map(\.phonemes), "after stopping '\(stopped)'")
        }
    }

    @Test("the last character is never dropped", arguments: ["cats", "Build passed", "abc"])
    func lastCharacterKept(text: String) throws {
        let phonemes = try synthesizer.phonemes(text, options: options(), ipa: false)
        let trimmed = phonemes.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = try #require(text.last)
        // "cats" ends in s, "passed" in t, and "abc" spelt out ends in the letter c ("si:").
        let expectedEnding = ["s": "s", "d": "t", "c": "i:"][String(last)]!
        #expect(trimmed.hasSuffix(expectedEnding), "\(text) → \(trimmed)")
    }

    @Test("nadia speaks Hausa syllables, not English words or letter names")
    func nadiaPhonemes() throws {
        let text = "Na gode! Mun karɓi saƙonku."
        let hausa = try synthesizer.phonemes(text, options: options("nadia"), ipa: true)
        for syllables in ["na", "ɡˈode", "mˈun", "kˈarbi", "sakˈoŋku"] {
            #expect(hausa.contains(syllables), "\(syllables) missing from \(hausa)")
        }
        // English reads the same letters quite differently.
        let english = try synthesizer.phonemes(text, options: options(), ipa: true)
        #expect(english != hausa)
        #expect(!hausa.contains("ɡˈəʊd") && !hausa.contains("ɡˈoʊd"))
    }

    @Test("Hausa letters map onto what espeak-ng's Swahili can say")
    func transliteration() throws {
        let nadia = try catalog.voice(named: "nadia")
        #expect(
            try EspeakVoiceSettings(of: nadia).transliterate("ɓaƙo ɗan ƴa'ya cikin") == "bako dan yaya chikin")
    }

    @Test("every shipped voice's espeak-ng settings read as Codable reads them, and bad ones are named")
    func settingsReader() throws {
        for voice in catalog.voices where voice.engine == EspeakSynthesizer.engineName {
            #expect(try EspeakVoiceSettings(of: voice) == voice.settings(as: EspeakVoiceSettings.self), "\(voice.name)")
        }
        let nadia = try EspeakVoiceSettings(of: catalog.voice(named: "nadia"))
        #expect(nadia.voice == "bnt/sw" && nadia.variant == "f3" && nadia.transliteration?["ɓ"] == "b")
        let cases: [(JSONValue, String)] = [
            (.object([:]), "'voice' (an espeak-ng voice name such as en-us) is required"),
            (.object(["voice": .number(1)]), "'voice' (an espeak-ng voice name such as en-us) is required"),
            (.object(["voice": .string("en"), "variant": .bool(true)]), "'variant' must be a string"),
            (
                .object(["voice": .string("en"), "transliteration": .object(["a": .number(1)])]),
                "'transliteration' must map letters to strings"
            ),
            (.array([]), "the settings must be an object"),
        ]
        for (settings, reason) in cases {
            let voice = Voice(name: "odd", language: "en", engine: "espeak", settings: settings)
            #expect(throws: VoiceError.invalidSettings("odd", "espeak", reason)) { try EspeakVoiceSettings(of: voice) }
        }
    }

    @Test("a shipped voice opens its own espeak-ng file; other names take espeak-ng's search")
    func voiceByFile() throws {
        for voice in catalog.voices where voice.engine == EspeakSynthesizer.engineName {
            let name = try EspeakVoiceSettings(of: voice).espeakName
            let selection = try synthesizer.lock.withLock { try synthesizer.selectVoice(name) }
            #expect(selection == .file, "\(voice.name): \(name)")
        }
        for name in ["en-us", "sw+f3", "gmw/en"] {
            #expect(
                try synthesizer.lock.withLock { try synthesizer.selectVoice(name) }
                    == (name.contains("/") ? .file : .search))
        }
        for name in ["gmw/no-such-voice", "../gmw/en-US", "gmw/../gmw/en-US", "no-such-voice"] {
            #expect(throws: EspeakError.self, "\(name)") {
                try synthesizer.lock.withLock { try synthesizer.selectVoice(name) }
            }
        }
    }

    @Test("rate, pitch and volume change the sound")
    func prosody() throws {
        func render(_ options: SpeechOptions) throws -> PCMBuffer {
            var pcm = PCMBuffer(sampleRate: synthesizer.sampleRate)
            try synthesizer.synthesize("How fast and how loud is this?", options: options) { pcm.samples += $0 }
            return pcm
        }
        let voice = try catalog.voice(named: "default")
        let normal = try render(SpeechOptions(voice: voice))
        let fast = try render(SpeechOptions(voice: voice, rate: 350))
        let quiet = try render(SpeechOptions(voice: voice, volume: 30))
        #expect(fast.duration < normal.duration * 0.7)
        #expect(quiet.rms < normal.rms * 0.5)
    }

    @Test("SSML ends where its text does, as plain text does; a break asked for at the end is kept")
    func ssmlEndsWithItsText() throws {
        func render(_ text: String, ssml: Bool) throws -> PCMBuffer {
            var pcm = PCMBuffer(sampleRate: synthesizer.sampleRate)
            let options = SpeechOptions(voice: try catalog.voice(named: "default"), ssml: ssml)
            try synthesizer.synthesize(text, options: options) { pcm.samples += $0 }
            return pcm
        }
        /// The near-silence (under -50 dB) after the last sound, in seconds.
        func trailingSilence(_ pcm: PCMBuffer) -> Double {
            let last = pcm.samples.lastIndex { abs(Int($0)) >= 100 } ?? 0
            return Double(pcm.samples.count - 1 - last) / Double(pcm.sampleRate)
        }
        let plain = try render("Hello there.", ssml: false)
        let markup = try render("<speak>Hello there.</speak>", ssml: true)
        // espeak-ng alone closes SSML with a clause pause of about 0.3 s. Within 0.1 s, not 0.03:
        // in a full run, suites beside this one have put the two 0.05 s apart.
        #expect(abs(markup.duration - plain.duration) < 0.1, "\(markup.duration) s against \(plain.duration) s")
        #expect(trailingSilence(markup) < 0.05, "\(trailingSilence(markup)) s")
        let pause = try render(#"<speak>Hello there.<break time="1000ms"/></speak>"#, ssml: true)
        #expect(abs(trailingSilence(pause) - 1) < 0.05, "\(trailingSilence(pause)) s")
        #expect(EspeakSynthesizer.markingEnd("no markup") == "no markup")
    }

    @Test("unknown voices suggest the closest names")
    func unknownVoice() throws {
        #expect(throws: VoiceError.unknown("nadai", suggestions: ["nadia"])) { try catalog.voice(named: "nadai") }
        #expect(try catalog.voice(named: "NADIA").name == "nadia")
    }

    @Test("a voice file dropped into a directory is loaded, and overrides a shipped one of its name")
    func userVoices() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("voices-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            (#"{"name":"robo","language":"en","espeakVoice":"en","variant":"klatt","rate":120,"pitch":10,"#
                + #""description":"Beep."}"#).utf8
        )
        .write(to: directory.appendingPathComponent("robo.json"))
        try Data(
            #"{"name":"ava","language":"en-US","espeakVoice":"en-us","rate":300,"pitch":50,"description":"Fast Ava."}"#
                .utf8
        )
        .write(to: directory.appendingPathComponent("ava.json"))
        let catalog = try VoiceCatalog(directories: [VoiceCatalog.shippedDirectory()!, directory])
        #expect(try EspeakVoiceSettings(of: catalog.voice(named: "robo")).variant == "klatt")
        #expect(try catalog.voice(named: "ava").rate == 300)
        #expect(catalog.voices.contains { $0.name == "nadia" })
    }

    @Test("the shipped voices are found from a build tree's executable, under any scratch path")
    func shippedVoicesInBuildTrees() throws {
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("package-\(UUID())")
        try FileManager.default.createDirectory(
            at: package.appendingPathComponent("Voices"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: package) }
        for binary in [".build/x86_64-unknown-linux-gnu/debug/speak", ".build/asan/x86_64-unknown-linux-gnu/debug/t"] {
            let found = VoiceCatalog.shippedDirectory(executable: package.appendingPathComponent(binary))
            #expect(found?.path == package.appendingPathComponent("Voices").standardizedFileURL.path, "\(binary)")
        }
        #expect(VoiceCatalog.shippedDirectory(executable: package.appendingPathComponent("elsewhere/bin/t")) == nil)
    }
}
