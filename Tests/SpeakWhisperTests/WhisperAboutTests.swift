import SpeakKit
import SpeakWhisper
import Testing

/// Whisper says which model runs and the languages it hears, for any front end (Wyoming's `info`).
@Suite("Whisper describes itself")
struct WhisperAboutTests {
    @Test("an English-only model hears English; a multilingual one Whisper's languages")
    func about() throws {
        let english = try WhisperTranscriber(model: "tiny.en").about
        let expected = TranscriberDescription(
            name: "Whisper (whisper.cpp), model tiny.en", model: "tiny.en", languages: ["en"])
        #expect(english == expected)
        let multilingual = try #require(try WhisperTranscriber(model: "base").about)
        #expect(multilingual.model == "base")
        #expect(multilingual.languages == WhisperTranscriber.languages)
        #expect(multilingual.languages.contains("ha") && multilingual.languages.count == 100)
    }
}
