import Foundation
import SpeakKit
import Testing

@testable import SpeakWhisper

@Suite("whisper decoding: greedy or beam search")
struct WhisperDecodingTests {
    typealias Configuration = WhisperTranscriber.Configuration

    @Test("SPEAK_WHISPER_BEAM_SIZE picks whisper.cpp's beam search with that many beams")
    func beamSizeFromEnvironment() {
        let beam = Configuration(beamSize: Configuration.beamSize(environment: ["SPEAK_WHISPER_BEAM_SIZE": "5"]))
        #expect(beam.beamSize == 5)
        #expect(beam.decoding == (beamSearch: true, beams: 5, fallbackCandidates: 5))
        let greedy = Configuration(beamSize: Configuration.beamSize(environment: ["SPEAK_WHISPER_BEAM_SIZE": "1"]))
        #expect(greedy.decoding == (beamSearch: false, beams: 1, fallbackCandidates: 5))
    }

    @Test("unset, or not 1 to 8, it is the default", arguments: [nil, "", "0", "9", "five", "-2"])
    func beamSizeDefault(value: String?) {
        let environment = value.map { ["SPEAK_WHISPER_BEAM_SIZE": $0] } ?? [:]
        #expect(Configuration.beamSize(environment: environment) == Configuration.defaultBeamSize)
    }

    @Test("a beam size given in code is kept within whisper.cpp's 1 to 8")
    func beamSizeClamped() {
        #expect(Configuration(beamSize: 0).decoding == (beamSearch: false, beams: 1, fallbackCandidates: 5))
        #expect(Configuration(beamSize: 20).decoding == (beamSearch: true, beams: 8, fallbackCandidates: 5))
    }

    @Test("an interim decode's encoder takes less silence after the audio, but no less than 10 s in all")
    func interimWindow() {
        let fitted = WhisperTranscriber.EncoderWindow.fitted(padding: 500, minimum: 0)
        let seconds = { (count: Int) in count * 16_000 }
        #expect(fitted.audioContext(samples: seconds(8), full: 1500) == 900)
        #expect(fitted.audioContext(samples: seconds(8), full: 1500, interim: true) == 500)
        #expect(fitted.audioContext(samples: seconds(2), full: 1500) == 600)
        #expect(fitted.audioContext(samples: seconds(2), full: 1500, interim: true) == 500)
        #expect(fitted.audioContext(samples: seconds(30), full: 1500, interim: true) == 0)
        #expect(WhisperTranscriber.EncoderWindow.full.audioContext(samples: seconds(2), full: 1500, interim: true) == 0)
    }

    @Test("an interim decode hears a sentence as a whole one does")
    func interimTranscribes() throws {
        let transcriber = try WhisperTranscriber(model: "base")
        let sentence = "Call my sister when you arrive at the airport."
        var options = TranscriptionOptions(language: "en")
        options.interim = true
        #expect(try transcriber.transcribe(Speech.clip(sentence), options: options).text == sentence)
    }

    @Test("beam search hears a sentence exactly, as greedy decoding does")
    func beamSearchTranscribes() throws {
        let transcriber = try WhisperTranscriber(model: "base", configuration: .init(beamSize: 5))
        let sentence = "Call my sister when you arrive at the airport."
        let transcript = try transcriber.transcribe(Speech.clip(sentence), options: TranscriptionOptions())
        #expect(transcript.text == sentence)
    }
}

/// The same audio, transcribed again by the same transcriber, is heard the same: a decoding state
/// reused from an earlier call keeps whisper.cpp's sampler where that call left it.
@Suite("Whisper: the same audio, the same transcript")
struct WhisperDeterminismTests {
    @Test("sampled at temperature 1, one clip transcribed three times gives one text")
    func sameTextEachTime() throws {
        let transcriber = try WhisperTranscriber(model: "tiny.en", configuration: .init(threads: 2))
        let clip = try Speech.clip("The quick brown fox jumps over the lazy dog near the river bank.")
        var options = TranscriptionOptions()
        options.temperature = 1
        let texts = try (0..<3).map { _ in try transcriber.transcribe(clip, options: options).text }
        #expect(Set(texts).count == 1, "\(texts)")
    }
}
