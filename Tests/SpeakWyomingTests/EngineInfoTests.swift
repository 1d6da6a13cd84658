import SpeakKit
import SpeakTestSupport
import SpeakWyoming
import Testing

/// What Wyoming's `info` tells comes from the engines themselves: a test-only engine plugged in
/// is described with no front end edited.
@Suite("WyomingEngineInfo")
struct EngineInfoTests {
    @Test("the transcriber's own name, model and languages; none for one that cannot transcribe")
    func transcriberInfo() throws {
        let about = TranscriberDescription(name: "a fixed transcriber", model: "fixed-1", languages: ["en", "ha"])
        let info = try #require(WyomingService.TranscriberInfo(FixedTranscriber(text: "yes", about: about)))
        #expect(info.description == "a fixed transcriber")
        #expect(info.model == "fixed-1")
        #expect(info.languages == ["en", "ha"])
        #expect(WyomingService.TranscriberInfo(UnavailableTranscriber(reason: "no model")) == nil)
    }

    @Test("each voice's speakers are its engine's, and a speaker's voice is the engine's answer")
    func speakers() throws {
        var script = ScriptedSynthesizer.Script()
        script.speakers = ["ann", "bob"]
        let scripted = ScriptedSynthesizer(script)
        let many = Voice(name: "many", language: "en-US", engine: "scripted")
        let plain = Voice(name: "plain", language: "en-US", engine: "plain")
        let engine = SpeechEngine(
            catalog: VoiceCatalog(voices: [many, plain]),
            synthesizers: SynthesizerRegistry(["scripted": { scripted }, "plain": { ScriptedSynthesizer() }]))
        let speakers = WyomingService.Speakers(engine: engine)
        #expect(speakers.names(many) == ["ann", "bob"])
        #expect(speakers.names(plain).isEmpty)
        #expect(speakers.voice(many, "bob")?.settings == .object(["speaker": .number(1)]))
        #expect(speakers.voice(many, "carl") == nil)
        #expect(speakers.names(Voice(name: "gone", language: "en", engine: "not-carried")).isEmpty)
    }
}
