import Foundation
import Testing

@testable import SpeakKit

@Suite("streaming reply encoding and resampling")
struct ReplyEncoderTests {
    static let speech = CodecTests.speech

    /// `samples` in pieces of `size`, as espeak-ng would hand them over.
    static func chunks(_ samples: [Int16], size: Int) -> [[Int16]] {
        stride(from: 0, to: samples.count, by: size).map { Array(samples[$0..<min($0 + size, samples.count)]) }
    }

    static func encode(_ samples: [Int16], format: ReplyFormat, chunkSize: Int) throws -> Data {
        let encoder = try ReplyEncoder(format: format, inputRate: speech.sampleRate)
        var reply = Data()
        for chunk in chunks(samples, size: chunkSize) { reply += try chunk.withUnsafeBufferPointer(encoder.encode) }
        return reply + (try encoder.finish())
    }

    @Test("resampling in chunks gives exactly what resampling the whole gives", arguments: [1, 7, 441, 5000])
    func resamplerChunksSeamless(chunkSize: Int) {
        var whole = Resampler(inputRate: 22050, outputRate: 24000)
        let expected = whole.process(Self.speech.samples) + whole.finish()
        var streaming = Resampler(inputRate: 22050, outputRate: 24000)
        var output = Self.chunks(Self.speech.samples, size: chunkSize).flatMap { streaming.process($0) }
        output += streaming.finish()
        #expect(mismatch(output, expected) == nil)
        // One output sample per 1/24000 s of input, rounded up.
        #expect(output.count == (Self.speech.samples.count * 24000 + 22049) / 22050)
    }

    @Test("a resampled tone is the same tone at the new rate")
    func resamplerKeepsTone() {
        func tone(rate: Int, count: Int) -> [Int16] {
            (0..<count).map { Int16(10000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        }
        var resampler = Resampler(inputRate: 22050, outputRate: 24000)
        let output = resampler.process(tone(rate: 22050, count: 22050)) + resampler.finish()
        let expected = tone(rate: 24000, count: output.count - 1)
        // Linear interpolation of 440 Hz at 22050 Hz is off by at most about 0.2% of the amplitude.
        let worst = zip(output, expected).map { abs(Int($0) - Int($1)) }.max()!
        #expect(worst < 40, "largest error \(worst)")
    }

    @Test(
        "an MP3 reply fed in chunks is one plain stream of frames, equal to encoding the whole", arguments: [441, 1000])
    func mp3Stream(chunkSize: Int) throws {
        let reply = try Self.encode(Self.speech.samples, format: .mp3, chunkSize: chunkSize)
        let frames = try #require(MP3Frames(reply))
        #expect(frames.count > 10)
        #expect(frames.bitrates == [32] && frames.sampleRates == [22050], "one encoder's settings throughout")
        #expect(!frames.firstFrame.contains(Data("Xing".utf8)) && !frames.firstFrame.contains(Data("Info".utf8)))
        #expect(!reply.starts(with: Data("ID3".utf8)))
        let whole = try MP3Encoder.encodeFile(Self.speech)
        #expect(mismatch(try MP3Decoder.decode(reply).samples, try MP3Decoder.decode(whole).samples) == nil)
    }

    @Test("a WAV reply has a header for a stream of unknown length, then the samples")
    func wavStream() throws {
        let reply = try Self.encode(Self.speech.samples, format: .wav, chunkSize: 441)
        let sizes = [4, 40].map { offset in reply[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(sizes == [0xFFFF_FFFF, 0xFFFF_FFFF])
        let decoded = try WAV.decode(reply)
        #expect(decoded.sampleRate == Self.speech.sampleRate)
        #expect(mismatch(decoded.samples, Self.speech.samples) == nil)
        // An empty reply is still a WAV file.
        #expect(WAV.isWAV(try Self.encode([], format: .wav, chunkSize: 1)))
    }

    @Test("a PCM reply is 24 kHz little-endian samples")
    func pcmStream() throws {
        let reply = try Self.encode(Self.speech.samples, format: .pcm, chunkSize: 441)
        var resampler = Resampler(inputRate: Self.speech.sampleRate, outputRate: 24000)
        let expected = resampler.process(Self.speech.samples) + resampler.finish()
        let samples = stride(from: 0, to: reply.count, by: 2).map {
            Int16(bitPattern: UInt16(reply[$0]) | UInt16(reply[$0 + 1]) << 8)
        }
        #expect(mismatch(samples, expected) == nil)
        #expect(ReplyFormat.pcm.contentType == "audio/pcm" && ReplyFormat.mp3.contentType == "audio/mpeg")
    }
}

/// Walks an MPEG-2 Layer III stream frame by frame; `nil` unless the frames tile the data exactly.
struct MP3Frames {
    var count = 0
    var bitrates: Set<Int> = []
    var sampleRates: Set<Int> = []
    var firstFrame = Data()

    init?(_ data: Data) {
        let bytes = [UInt8](data)
        let kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xFE == 0xF2,
                case let bitrate = kbps[Int(bytes[offset + 2] >> 4) % 15], bitrate > 0,
                case let rateIndex = Int(bytes[offset + 2] >> 2 & 3), rateIndex < 3
            else { return nil }
            let sampleRate = [22050, 24000, 16000][rateIndex]
            let length = 72 * bitrate * 1000 / sampleRate + Int(bytes[offset + 2] >> 1 & 1)
            if count == 0 { firstFrame = Data(bytes[0..<min(length, bytes.count)]) }
            bitrates.insert(bitrate)
            sampleRates.insert(sampleRate)
            count += 1
            offset += length
        }
        guard offset == bytes.count else { return nil }
    }
}

/// Where two sample arrays first differ, if they do. (Swift Testing's own diff of two long arrays
/// takes minutes.)
func mismatch(_ actual: [Int16], _ expected: [Int16]) -> String? {
    guard actual != expected else { return nil }
    let index =
        (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] }
        ?? min(actual.count, expected.count)
    return "first difference at sample \(index); \(actual.count) samples, \(expected.count) expected"
}
