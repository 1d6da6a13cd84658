import Foundation
import Testing

@testable import SpeakPiper

/// What a Piper model is fed, against piper-tts feeding the same model.
@Suite("Piper phoneme ids against piper-tts")
struct PiperIDsTests {
    static let texts = [
        "The build finished a few minutes ago.", "Is the server down again? It was fine an hour ago.",
        "Dr. Patel will see you on Tuesday, March 3rd.", "I paid $12.99 for the cable, which seemed like a lot.",
        "Wow, that was fast!", "The meeting is at noon (unless it rains).",
    ]

    @Test("each sentence's ids are piper-tts' own: no pad after the end marker")
    func sameIDsAsPiperTTS() throws {
        let model = try Joe.synthesizer.model(for: Joe.voice)
        let script = """
            import json, sys
            from piper import PiperVoice
            voice = PiperVoice.load(sys.argv[1])
            texts = json.load(sys.stdin)
            print(json.dumps([[voice.phonemes_to_ids(s) for s in voice.phonemize(t)] for t in texts]))
            """
        let output = try PiperTTS.run(
            [PiperTTS.python, "-c", script, model.files.model.path],
            input: JSONSerialization.data(withJSONObject: Self.texts))
        let theirs = try JSONDecoder().decode([[[Int64]]].self, from: output)
        for (text, expected) in zip(Self.texts, theirs) {
            let ours = try PiperPhonemizer.sentences(text, voice: model.config.espeakVoice).map { sentence in
                try model.ids(sentence.phonemes.unicodeScalars.map { Int32(bitPattern: $0.value) })
            }
            #expect(ours == expected, "\(text)")
        }
    }
}
