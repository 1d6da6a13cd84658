import Foundation
import SpeakKit
import SpeakMedia
import SpeakTestSupport
import Testing

/// Whatever comes in, a file or raw PCM at any rate, width and channel count, the transcriber gets
/// 16 kHz mono, resampled exactly once: the same samples as one step from the input would give.
@Suite("TranscriptionEngine")
struct TranscriptionEngineTests {
    static let formats = TestAudio.formats
    static let rates = Set(formats.map(\.sampleRate)).sorted()

    @Test("raw PCM, whole or in chunks that split frames, reaches the transcriber as 16 kHz mono, once resampled")
    func rawPCM() throws {
        for format in Self.formats {
            let bytes = TestAudio.tone(format, seconds: 0.25)
            let expected = TestAudio.oneStep(TestAudio.mono(bytes, format), from: format.sampleRate)
            let transcriber = CapturingTranscriber()
            let engine = TranscriptionEngine(transcriber: transcriber)
            _ = try engine.transcribe(bytes, format: format, options: TranscriptionOptions())
            var input = engine.stream(format, options: TranscriptionOptions())
            for start in stride(from: 0, to: bytes.count, by: 1001) {
                try input.append(Array(bytes[start..<min(bytes.count, start + 1001)]))
            }
            _ = try input.finish()
            let heard = transcriber.heard
            #expect(heard.count == 2)
            for audio in heard {
                #expect(audio.sampleRate == 16000, "\(format)")
                #expect(abs(audio.samples.count - 4000) <= 1, "\(format): \(audio.samples.count) samples")
                #expect(TestAudio.difference(audio.samples, expected) == nil, "\(format)")
            }
        }
    }

    @Test("mono PCM at any rate is resampled once; at 16 kHz it passes untouched")
    func monoBuffer() throws {
        for rate in Self.rates {
            let format = PCMFormat(sampleRate: rate)
            let samples = TestAudio.mono(TestAudio.tone(format, seconds: 0.25), format)
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber).transcribe(
                PCMBuffer(sampleRate: rate, samples: samples), options: TranscriptionOptions())
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(TestAudio.difference(heard.samples, TestAudio.oneStep(samples, from: rate)) == nil, "\(rate) Hz")
            if rate == 16000 { #expect(TestAudio.difference(heard.samples, samples) == nil) }
        }
    }

    @Test("a WAV file, read by SpeakKit at its own rate, is resampled once by the engine")
    func builtInDecoder() throws {
        for format in Self.formats where format.width == 2 {
            let file = try TestAudio.wavFile(format, seconds: 0.25)
            defer { try? FileManager.default.removeItem(at: file) }
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber).transcribe(
                file: file, options: TranscriptionOptions())
            let native = try WAV.decode(Data(contentsOf: file))
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(
                TestAudio.difference(heard.samples, TestAudio.oneStep(native.samples, from: native.sampleRate)) == nil,
                "\(format)")
        }
    }

    @Test("an upload through FFmpeg is resampled as it is decoded, and not again by the engine")
    func mediaDecoder() throws {
        for format in Self.formats {
            let file = try TestAudio.wavFile(format, seconds: 0.25)
            defer { try? FileManager.default.removeItem(at: file) }
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber, decoder: MediaDecoder()).transcribe(
                file: file, options: TranscriptionOptions())
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(abs(heard.samples.count - 4000) <= 1, "\(format): \(heard.samples.count) samples")
            let oneStep = try MediaDecoder.decode(file: file, sampleRate: 16000)
            #expect(TestAudio.difference(heard.samples, oneStep.samples) == nil, "\(format)")
        }
    }

    @Test("a file past the limit is refused, whichever decoder reads it")
    func tooLong() throws {
        let file = try TestAudio.wavFile(PCMFormat(sampleRate: 22050), seconds: 1.5)
        defer { try? FileManager.default.removeItem(at: file) }
        for decoder in [WAVAndMP3Decoder(), MediaDecoder()] as [any AudioFileDecoder] {
            let transcriber = CapturingTranscriber()
            #expect(throws: AudioFileError.tooLong(limitSeconds: 1)) {
                try TranscriptionEngine(transcriber: transcriber, decoder: decoder).transcribe(
                    file: file, maximumSeconds: 1, options: TranscriptionOptions())
            }
            #expect(transcriber.heard.isEmpty)
        }
    }
}
