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

    @Test("beam search hears a sentence exactly, as greedy decoding does")
    func beamSearchTranscribes() throws {
        let transcriber = try WhisperTranscriber(model: "base", configuration: .init(beamSize: 5))
        let sentence = "Call my sister when you arrive at the airport."
        let transcript = try transcriber.transcribe(Speech.clip(sentence), options: TranscriptionOptions())
        #expect(transcript.text == sentence)
    }
}
