import Foundation
import SpeakKit
import Testing

@testable import SpeakWhisper

@Suite("whisper's spectrogram, as faster-whisper makes it")
struct LogMelTests {
    /// 0.5 s of a 440 Hz tone and a 3 kHz one fading in.
    static let tones: [Float] = (0..<8000).map { n in
        let t = Double(n) / 16000
        return Float(0.3 * sin(2 * .pi * 440 * t) + 0.1 * sin(2 * .pi * 3000 * t) * Double(n) / 8000)
    }

    @Test("frames, values and floor equal faster-whisper 1.2.1's FeatureExtractor on the same samples")
    func matchesFasterWhisper() throws {
        let filters = try WhisperModel.find("base").melFilters()
        let logMel = LogMel(filters: filters.weights, bands: filters.bands)
        let (data, frames) = logMel.spectrogram(Self.tones)
        // faster-whisper hands the encoder samples / 160 frames and pads the rest of 30 s with zeros.
        #expect(frames == 50)
        #expect(data.count == 80 * 50)
        // FeatureExtractor()(samples)[band, frame], computed with faster-whisper 1.2.1.
        let expected: [(band: Int, frame: Int, value: Float)] = [
            (0, 0, 0.87235), (10, 0, 1.22532), (10, 25, 1.23781), (11, 40, 1.32728), (54, 40, 0.91611),
            (52, 49, -0.08114), (5, 49, 0.24746), (40, 49, -0.67272), (79, 10, -0.67272),
        ]
        for point in expected {
            let value = data[point.band * frames + point.frame]
            #expect(abs(value - point.value) < 2e-3, "band \(point.band), frame \(point.frame): \(value)")
        }
        // The floor is the maximum less 8 (in log10), as (x + 4) / 4: nothing lies below it.
        #expect(abs((data.min() ?? 0) - -0.67272) < 2e-3)
        #expect(abs((data.max() ?? 0) - 1.32728) < 2e-3)
    }

    @Test("transcribers read whisper.cpp's spectrogram unless SPEAK_WHISPER_SPECTROGRAM=faster-whisper")
    func defaultSpectrogram() {
        typealias Configuration = WhisperTranscriber.Configuration
        #expect(Configuration.spectrogram(environment: [:]) == .whisperCpp)
        #expect(
            Configuration.spectrogram(environment: ["SPEAK_WHISPER_SPECTROGRAM": "faster-whisper"]) == .fasterWhisper)
        #expect(Configuration.spectrogram(environment: ["SPEAK_WHISPER_SPECTROGRAM": "yes"]) == .whisperCpp)
    }

    @Test("an espeak-ng en-gb-x-rp sentence is heard through it, beam 5")
    func britishSentence() throws {
        let transcriber = try WhisperTranscriber(
            model: "base", configuration: .init(threads: 2, beamSize: 5, spectrogram: .fasterWhisper))
        let sentence = "The bus was late again this morning."
        let audio = try Speech.clip(sentence, voice: "en-gb-x-rp")
        let heard = try transcriber.transcribe(audio, options: TranscriptionOptions(language: "en")).text
        #expect(Speech.words(heard) == Speech.words(sentence), "heard: \(heard)")
    }
}
