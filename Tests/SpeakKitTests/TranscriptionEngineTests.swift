import Foundation
import SpeakKit
import SpeakMedia
import SpeakTestSupport
import Testing

/// Whatever comes in, a file or raw PCM at any rate, width and channel count, the transcriber gets
/// 16 kHz mono, resampled exactly once: the same samples as one step from the input would give.
@Suite("TranscriptionEngine")
struct TranscriptionEngineTests {
    static let rates = [8000, 16000, 22050, 44100, 48000]
    static let formats = rates.flatMap { rate in
        [1, 2, 3].flatMap { width in [1, 2].map { PCMFormat(sampleRate: rate, width: width, channels: $0) } }
    }

    @Test("raw PCM, whole or in chunks that split frames, reaches the transcriber as 16 kHz mono, once resampled")
    func rawPCM() throws {
        for format in Self.formats {
            let bytes = Self.tone(format, seconds: 0.25)
            let expected = Self.oneStep(Self.mono(bytes, format), from: format.sampleRate)
            let transcriber = CapturingTranscriber()
            let engine = TranscriptionEngine(transcriber: transcriber)
            _ = try engine.transcribe(bytes, format: format, options: TranscriptionOptions())
            var input = engine.input(format)
            for start in stride(from: 0, to: bytes.count, by: 1001) {
                input.append(Array(bytes[start..<min(bytes.count, start + 1001)]))
            }
            _ = try engine.transcribe(input, options: TranscriptionOptions())
            let heard = transcriber.heard
            #expect(heard.count == 2)
            for audio in heard {
                #expect(audio.sampleRate == 16000, "\(format)")
                #expect(abs(audio.samples.count - 4000) <= 1, "\(format): \(audio.samples.count) samples")
                #expect(Self.difference(audio.samples, expected) == nil, "\(format)")
            }
        }
    }

    @Test("mono PCM at any rate is resampled once; at 16 kHz it passes untouched")
    func monoBuffer() throws {
        for rate in Self.rates {
            let format = PCMFormat(sampleRate: rate)
            let samples = Self.mono(Self.tone(format, seconds: 0.25), format)
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber).transcribe(
                PCMBuffer(sampleRate: rate, samples: samples), options: TranscriptionOptions())
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(Self.difference(heard.samples, Self.oneStep(samples, from: rate)) == nil, "\(rate) Hz")
            if rate == 16000 { #expect(Self.difference(heard.samples, samples) == nil) }
        }
    }

    @Test("a WAV file, read by SpeakKit at its own rate, is resampled once by the engine")
    func builtInDecoder() throws {
        for format in Self.formats where format.width == 2 {
            let file = try Self.wavFile(format, seconds: 0.25)
            defer { try? FileManager.default.removeItem(at: file) }
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber).transcribe(
                file: file, options: TranscriptionOptions())
            let native = try WAV.decode(Data(contentsOf: file))
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(
                Self.difference(heard.samples, Self.oneStep(native.samples, from: native.sampleRate)) == nil,
                "\(format)")
        }
    }

    @Test("an upload through FFmpeg is resampled as it is decoded, and not again by the engine")
    func mediaDecoder() throws {
        for format in Self.formats {
            let file = try Self.wavFile(format, seconds: 0.25)
            defer { try? FileManager.default.removeItem(at: file) }
            let transcriber = CapturingTranscriber()
            _ = try TranscriptionEngine(transcriber: transcriber, decoder: MediaDecoder()).transcribe(
                file: file, options: TranscriptionOptions())
            let heard = try #require(transcriber.heard.first)
            #expect(heard.sampleRate == 16000)
            #expect(abs(heard.samples.count - 4000) <= 1, "\(format): \(heard.samples.count) samples")
            let oneStep = try MediaDecoder.decode(file: file, sampleRate: 16000)
            #expect(Self.difference(heard.samples, oneStep.samples) == nil, "\(format)")
        }
    }

    @Test("a file past the limit is refused, whichever decoder reads it")
    func tooLong() throws {
        let file = try Self.wavFile(PCMFormat(sampleRate: 22050), seconds: 1.5)
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

    // MARK: Test audio

    /// A chord, a different one in each channel, near full scale, as interleaved bytes in `format`.
    static func tone(_ format: PCMFormat, seconds: Double) -> [UInt8] {
        let frames = Int(seconds * Double(format.sampleRate))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.frameBytes)
        for frame in 0..<frames {
            let time = Double(frame) / Double(format.sampleRate)
            for channel in 0..<format.channels {
                let base = 220.0 * Double(channel + 1)
                let value = 0.6 * sin(2 * .pi * base * time) + 0.3 * sin(2 * .pi * base * 3.7 * time)
                if format.width == 1 {
                    bytes.append(UInt8(128 + Int((value * 127).rounded())))
                } else {
                    let scale = Double((1 << (format.width * 8 - 1)) - 1)
                    let sample = Int((value * scale).rounded())
                    for byte in 0..<format.width { bytes.append(UInt8(truncatingIfNeeded: sample >> (byte * 8))) }
                }
            }
        }
        return bytes
    }

    /// The bytes as mono 16-bit at their own rate: each sample's two most significant bytes (an
    /// unsigned byte centred), the channels averaged.
    static func mono(_ bytes: [UInt8], _ format: PCMFormat) -> [Int16] {
        stride(from: 0, to: bytes.count - format.frameBytes + 1, by: format.frameBytes).map { frame in
            var sum = 0
            for channel in 0..<format.channels {
                let at = frame + channel * format.width
                sum +=
                    format.width == 1
                    ? (Int(bytes[at]) - 128) << 8
                    : Int(
                        Int16(
                            bitPattern: UInt16(bytes[at + format.width - 2]) | UInt16(bytes[at + format.width - 1]) << 8
                        ))
            }
            return Int16(sum / format.channels)
        }
    }

    /// Where `heard` first differs from `expected`, or `nil` when they are the same (a short message
    /// where a failed comparison of arrays would print thousands of samples).
    static func difference(_ heard: [Int16], _ expected: [Int16]) -> String? {
        if let index = (0..<min(heard.count, expected.count)).first(where: { heard[$0] != expected[$0] }) {
            return "sample \(index) is \(heard[index]), not \(expected[index])"
        }
        return heard.count == expected.count ? nil : "\(heard.count) samples, not \(expected.count)"
    }

    /// `samples` at `rate` taken to 16 kHz in one step of SpeakKit's resampler.
    static func oneStep(_ samples: [Int16], from rate: Int) -> [Int16] {
        var resampler = Resampler(inputRate: rate, outputRate: 16000)
        return resampler.process(samples) + resampler.finish()
    }

    /// A PCM WAV file of ``tone(_:seconds:)`` in `format`.
    static func wavFile(_ format: PCMFormat, seconds: Double) throws -> URL {
        let samples = tone(format, seconds: seconds)
        var data = Data("RIFF".utf8)
        func append(_ value: Int, bytes: Int) {
            for byte in 0..<bytes { data.append(UInt8(truncatingIfNeeded: value >> (byte * 8))) }
        }
        append(36 + samples.count, bytes: 4)
        data += Data("WAVEfmt ".utf8)
        append(16, bytes: 4)
        append(1, bytes: 2)
        append(format.channels, bytes: 2)
        append(format.sampleRate, bytes: 4)
        append(format.sampleRate * format.frameBytes, bytes: 4)
        append(format.frameBytes, bytes: 2)
        append(format.width * 8, bytes: 2)
        data += Data("data".utf8)
        append(samples.count, bytes: 4)
        data += samples
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-engine-\(UUID().uuidString).wav")
        try data.write(to: file)
        return file
    }
}
