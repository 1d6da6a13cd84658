import SpeakKit
import SpeakTestSupport
import Testing

/// The voice a front end asks for, resolved and refused by the engine alone, as HTTP and Wyoming
/// ask for it. Test-only engines plugged in as real ones are.
@Suite("PluggedEngineVoices")
struct PluggedEngineVoiceTests {
    static let french = Voice(name: "amelie", language: "fr-FR", engine: "scripted")
    static let english = Voice(name: "default", language: "en-US", engine: "scripted")

    static func engine(_ script: ScriptedSynthesizer.Script = .init()) -> SpeechEngine {
        let synthesizer = ScriptedSynthesizer(script)
        return SpeechEngine(
            catalog: VoiceCatalog(voices: [english, french]),
            synthesizers: SynthesizerRegistry(["scripted": { synthesizer }]))
    }

    @Test("by name, by language, else the default voice; a name comes before a language")
    func resolved() throws {
        let engine = Self.engine()
        #expect(try engine.resolveVoice(named: "amelie").name == "amelie")
        #expect(try engine.resolveVoice(named: nil, language: "fr_FR").name == "amelie")
        #expect(try engine.resolveVoice(named: "default", language: "fr").name == "default")
        #expect(try engine.resolveVoice(named: nil).name == "default")
    }

    @Test("an unknown name or language is refused with a one-line message naming it")
    func unknown() throws {
        let engine = Self.engine()
        #expect {
            try engine.resolveVoice(named: "nobody")
        } throws: { error in
            guard case .unknownVoice = error as? VoiceRefusal else { return false }
            return "\(error)".contains("nobody")
        }
        #expect {
            try engine.resolveVoice(named: nil, language: "xx")
        } throws: { error in
            guard case .noVoiceForLanguage = error as? VoiceRefusal else { return false }
            return "\(error)" == "no voice speaks 'xx'"
        }
    }

    @Test("a speaker is the engine's voice for it, unless the front end names its own; else refused")
    func speakers() throws {
        var script = ScriptedSynthesizer.Script()
        script.speakers = ["ann", "bob"]
        let engine = Self.engine(script)
        let bob = try engine.resolveVoice(named: "default", speaker: "bob")
        #expect(bob.settings == .object(["speaker": .number(1)]))
        let own = try engine.resolveVoice(named: "default", speaker: "bob") { voice, _ in Self.french }
        #expect(own.name == "amelie")
        #expect {
            try engine.resolveVoice(named: "default", speaker: "eve")
        } throws: { error in
            "\(error)" == "voice 'default' has no speaker 'eve'"
        }
    }

    @Test("a voice that cannot speak here is refused, unless the front end refuses only what it makes")
    func unavailable() throws {
        var script = ScriptedSynthesizer.Script()
        script.problems = ["voice:default": "its model is missing"]
        let engine = Self.engine(script)
        #expect {
            try engine.resolveVoice(named: nil)
        } throws: { error in
            guard case .unavailable(let voice, _) = error as? VoiceRefusal else { return false }
            return voice == "default" && "\(error)".contains("cannot speak here")
        }
        #expect(try engine.resolveVoice(named: nil, refusingUnavailable: false).name == "default")
    }

    @Test("OpenAI's and macOS's voice names are aliases: the English voice, the closest voice with a note")
    func aliases() throws {
        let engine = Self.engine()
        let nova = try engine.chooseVoice(named: "Nova")
        #expect(nova.voice.name == "default" && nova.note == nil)
        let thomas = try engine.chooseVoice(named: "Thomas")
        #expect(thomas.voice.name == "amelie")
        #expect(thomas.note?.contains("'Thomas' is a macOS voice (fr-FR, male)") == true)
        #expect(throws: VoiceRefusal.self) { try engine.chooseVoice(named: "Kyoko") }
        // A voice file of the name comes first.
        #expect(try engine.chooseVoice(named: "amelie").note == nil)
    }
}
