import Foundation
import SpeakKit
import SpeakPocketSphinx
import SpeakTestSupport
import SpeakUpstream
import Testing

/// The engine's policy with test-only engines plugged in as real ones are: by a registry entry,
/// with no front end edited.
@Suite("PluggedEngine")
struct PluggedEngineTests {
    static let remote = Voice(
        name: "remote", language: "en-US", engine: "scripted", settings: .object(["fallback": .string("local")]))
    static let local = Voice(name: "local", language: "en-US", engine: "scripted-local")

    struct Setup {
        let engine: SpeechEngine
        let remote: ScriptedSynthesizer
        let local: ScriptedSynthesizer
    }

    static func setup(_ remote: ScriptedSynthesizer.Script, local: ScriptedSynthesizer.Script = .init()) -> Setup {
        let (scripted, fallback) = (ScriptedSynthesizer(remote), ScriptedSynthesizer(local))
        let engine = SpeechEngine(
            catalog: VoiceCatalog(voices: [Self.remote, Self.local]),
            synthesizers: SynthesizerRegistry(["scripted": { scripted }, "scripted-local": { fallback }]))
        return Setup(engine: engine, remote: scripted, local: fallback)
    }

    static func request(_ voice: Voice = remote, format: ReplyFormat = .wav) -> SynthesisRequest {
        SynthesisRequest(text: "hello", options: SpeechOptions(voice: voice), format: format)
    }

    @Test("an engine down before its first chunk is answered by the voice's fallback, which the outcome names")
    func fallbackBeforeFirstChunk() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 0
        let setup = Self.setup(script)
        var chunks = 0
        let outcome = try setup.engine.synthesize(Self.request()) { _ in chunks += 1 }
        #expect(outcome.fallback?.voice == "local")
        #expect(outcome.fallback?.reason == "the scripted engine is down")
        #expect(chunks == 3)
        #expect(setup.local.requests.withLock { $0 } == ["hello"])
    }

    @Test("an engine that changes rate mid-reply: every chunk arrives at the first chunk's rate, resampled")
    func rateChangeMidReply() throws {
        var script = ScriptedSynthesizer.Script()
        script.rateChange = (chunk: 1, rate: 8000)
        script.chunks = 30
        let setup = Self.setup(script)
        var rates: Set<Int> = []
        var samples = 0
        try setup.engine.synthesize(Self.request()) { chunk in
            rates.insert(chunk.sampleRate)
            samples += chunk.samples.count
        }
        #expect(rates == [16000])
        // 160 samples at 16 kHz, then 29 chunks of 160 at 8 kHz: 10 ms + 580 ms, 9,440 samples at 16 kHz.
        #expect((9438...9440).contains(samples), "\(samples) samples")
        let (wav, _) = try setup.engine.reply(ReplyRequest(Self.request())).collected()
        let pcm = try PCMBuffer(audio: wav)
        #expect(pcm.sampleRate == 16000 && (9438...9440).contains(pcm.samples.count), "\(pcm.samples.count)")
    }

    @Test("an engine that fails after speaking is not replaced: the listener already heard part of it")
    func noFallbackAfterChunks() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 2
        let setup = Self.setup(script)
        var chunks = 0
        #expect(throws: ScriptedSynthesizer.EngineDown.self) {
            try setup.engine.synthesize(Self.request()) { _ in chunks += 1 }
        }
        #expect(chunks == 2)
        #expect(setup.local.requests.withLock { $0 }.isEmpty)
    }

    @Test("an encoded reply that fails after its first bytes is not finished by the fallback: no second reply after it")
    func noFallbackAfterBytes() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 2
        let setup = Self.setup(script)
        var written = Data()
        #expect(throws: ScriptedSynthesizer.EngineDown.self) {
            guard case .stream(_, let write) = try setup.engine.reply(ReplyRequest(Self.request())) else {
                Issue.record("a streaming engine's reply streams")
                return
            }
            _ = try write { written.append($0) }
        }
        #expect(setup.local.requests.withLock { $0 }.isEmpty)
        // One WAV header and two chunks, nothing after them.
        #expect(written.count == 44 + 2 * 160 * 2, "\(written.count) bytes")
    }

    @Test("a failure no local voice answers for is the caller's to see")
    func noFallbackForFault() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 0
        script.failure = ScriptedSynthesizer.Fault()
        let setup = Self.setup(script)
        #expect(throws: ScriptedSynthesizer.Fault.self) {
            try setup.engine.reply(ReplyRequest(Self.request())).collected()
        }
        #expect(setup.local.requests.withLock { $0 }.isEmpty)
    }

    @Test("an encoded reply falls back too, and is the fallback's audio")
    func encodedFallback() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 0
        var local = ScriptedSynthesizer.Script()
        local.sampleRate = 22050
        let setup = Self.setup(script, local: local)
        let (wav, outcome) = try setup.engine.reply(ReplyRequest(Self.request())).collected()
        #expect(outcome.fallback?.voice == "local")
        let pcm = try PCMBuffer(audio: wav)
        #expect(pcm.sampleRate == 22050)
        // Three chunks of 160, padded to a tenth of a second.
        #expect(pcm.samples.count == 2205)
    }

    @Test("an engine that reports a problem refuses its voices, and another language's voice is chosen")
    func refusal() throws {
        var script = ScriptedSynthesizer.Script()
        script.problems = ["model": "the scripted model is not installed"]
        let setup = Self.setup(script)
        guard case .failure(let error)? = setup.engine.availability(of: Self.remote) else {
            Issue.record("the voice was not refused")
            return
        }
        #expect(error == .engineUnavailable(engine: "scripted", reason: "the scripted model is not installed"))
        #expect(try #require(setup.engine.availability(of: Self.local)).get() == ())
        #expect(setup.engine.preferredVoice(forLanguage: "en")?.name == "local")
    }

    @Test("a voice whose engine this program does not carry is neither available nor refused")
    func notCarried() {
        let engine = SpeechEngine(catalog: VoiceCatalog(voices: [Self.remote]), synthesizers: SynthesizerRegistry([:]))
        #expect(engine.availability(of: Self.remote) == nil)
        #expect(throws: SynthesisError.engineNotCarried("scripted")) { try engine.synthesizer(for: Self.remote) }
    }

    @Test("phonemes and speakers are asked of the engine, with no cast to its type")
    func describesItself() throws {
        var script = ScriptedSynthesizer.Script()
        script.phonemes = "h@l'oU"
        script.speakers = ["ann", "bob"]
        let synthesizer = try Self.setup(script).engine.synthesizer(for: Self.remote)
        let options = SpeechOptions(voice: Self.remote)
        #expect(try synthesizer.phonemes(of: "hi", options: options, ipa: false) == "h@l'oU hi")
        #expect(synthesizer.speakers(of: Self.remote) == ["ann", "bob"])
        #expect(synthesizer.voice(Self.remote, speakingAs: "bob")?.settings == .object(["speaker": .number(1)]))
        #expect(synthesizer.voice(Self.remote, speakingAs: "carl") == nil)
    }

    @Test("espeak-ng shows its phonemes through the engine interface, as -x and --ipa print them")
    func espeakPhonemes() throws {
        let espeak = try EspeakSynthesizer.shared()
        let voice = Voice(name: "en", language: "en", settings: .object(["voice": .string("en-us")]))
        let options = SpeechOptions(voice: voice)
        let asked: any Synthesizer = espeak
        for ipa in [true, false] {
            let shown = try asked.phonemes(of: "cats", options: options, ipa: ipa)
            #expect(shown == (try espeak.phonemes("cats", options: options, ipa: ipa)))
            #expect(shown?.isEmpty == false)
        }
        #expect(asked.speakers(of: voice).isEmpty)
    }

    @Test("transcribers say their name, model and languages; a pool says so without loading one")
    func transcribersDescribeThemselves() throws {
        let made = Locked(0)
        let pool = TranscriberPool(size: 2, about: PocketSphinxTranscriber.englishUS) {
            made.withLock { $0 += 1 }
            return FixedTranscriber(text: "yes")
        }
        #expect(pool.about?.languages == ["en"])
        #expect(made.withLock { $0 } == 0)
        #expect(try pool.transcribe(PCMBuffer(sampleRate: 16000, samples: [0]), options: .init()).text == "yes")
        let remote = RemoteTranscriber(upstream: TranscriptionUpstream(api: .openai, url: "http://127.0.0.1:1"))
        #expect(remote.about?.model == "upstream")
        #expect(UnavailableTranscriber(reason: "no model").about == nil)
        #expect(try PocketSphinxTranscriber().about == PocketSphinxTranscriber.englishUS)
    }
}
