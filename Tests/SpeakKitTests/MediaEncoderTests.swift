import Foundation
import Testing

@testable import SpeakKit
@testable import SpeakMedia

/// FFmpeg's encoders plugged into ``ReplyEncoder``: every format decodes to the whole reply.
@Suite("reply formats encoded with FFmpeg")
struct MediaEncoderTests {
    /// Real speech, then a tone to the very last sample: a reply whose end is lost (an encoder not
    /// flushed, an Ogg page not written) decodes without the tone's end.
    static let reply: PCMBuffer = {
        var pcm = CodecTests.speech
        let rate = Double(pcm.sampleRate)
        pcm.samples += (0..<Int(rate * 0.2)).map { Int16(9000 * sin(2 * Double.pi * 440 * Double($0) / rate)) }
        return pcm
    }()

    static func encode(_ format: ReplyFormat, chunkSize: Int = 1001) throws -> Data {
        let encoder = try ReplyEncoder(format: format, inputRate: reply.sampleRate, codecs: .ffmpeg)
        var data = Data()
        for start in stride(from: 0, to: reply.samples.count, by: chunkSize) {
            let chunk = Array(reply.samples[start..<min(start + chunkSize, reply.samples.count)])
            data += try chunk.withUnsafeBufferPointer(encoder.encode)
        }
        return data + (try encoder.finish())
    }

    @Test("each format decodes to the synthesised length, its last sound included", arguments: ReplyFormat.allCases)
    func wholeReply(format: ReplyFormat) throws {
        let data = try Self.encode(format)
        let rate = Self.reply.sampleRate
        let decoded: PCMBuffer
        if format == .pcm {
            var pcm = PCMBuffer(sampleRate: ReplyFormat.pcmSampleRate)
            pcm.samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) } }
            var back = Resampler(inputRate: ReplyFormat.pcmSampleRate, outputRate: rate)
            decoded = PCMBuffer(sampleRate: rate, samples: back.process(pcm.samples) + back.finish())
        } else {
            decoded = try MediaDecoder.decode(data, sampleRate: rate)
        }
        // AAC in ADTS decodes with the encoder's 1024 samples of priming first and its last
        // frame's padding after (no container says to trim them).
        let priming = format == .aac ? 1024 : 0
        let expected = Self.reply.samples.count + priming
        let missing = expected - decoded.samples.count
        // Nothing lost at the end: at most 5 ms of resampler rounding short.
        #expect(missing <= rate / 200, "\(format): \(missing) samples short of \(expected)")
        // A streamed MP3 has no gapless header: its last frame's padding (under 2 frames) stays.
        #expect(-missing <= 2 * 1152, "\(format): \(-missing) samples too many")
        let lastSound = try #require(decoded.audibleSpan(threshold: 0.1)?.upperBound)
        #expect(lastSound >= expected - rate / 50, "\(format): the tone ends at \(lastSound) of \(expected)")
    }

    @Test("Opus is Ogg, AAC is ADTS, FLAC is FLAC")
    func containers() throws {
        #expect(try Self.encode(.opus).prefix(4) == Data("OggS".utf8))
        let aac = try Self.encode(.aac)
        #expect(aac[0] == 0xFF && aac[1] & 0xF0 == 0xF0, "ADTS sync word")
        #expect(try Self.encode(.flac).prefix(4) == Data("fLaC".utf8))
    }

    @Test("bytes come out while the reply is encoded, not only at the end", arguments: [ReplyFormat.opus, .aac, .flac])
    func streams(format: ReplyFormat) throws {
        let encoder = try ReplyEncoder(format: format, inputRate: Self.reply.sampleRate, codecs: .ffmpeg)
        let second = Array(Self.reply.samples.prefix(Self.reply.sampleRate))
        let early = try second.withUnsafeBufferPointer(encoder.encode)
        #expect(early.count > 200, "\(format): \(early.count) bytes after 1 s of audio")
        _ = try encoder.finish()
    }

    /// Resident memory in bytes, from /proc/self/statm.
    static func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The sanitizers' allocators keep freed memory (ASan's quarantine, TSan's own), so resident
    /// memory cannot show a leak under them.
    static let underSanitizer = ["__asan_init", "__tsan_init"].contains { (name: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }

    @Test("an encoder that cannot open frees what it made", .disabled(if: underSanitizer))
    func failedOpenFreesContexts() async throws {
        // AAC has no 1 kHz: avcodec_open2 refuses it after the muxer and codec contexts exist.
        // Each leaked ~5 kB. Measured in a process of its own: the other tests running beside
        // it in this one grow resident memory by tens of MB.
        await #expect(processExitsWith: .success) {
            func refused() -> Bool { (try? FFmpegEncoder(format: .aac, inputRate: 1000)) == nil }
            for _ in 0..<50 where !refused() { exit(2) }
            let before = try MediaEncoderTests.residentBytes()
            for _ in 0..<10_000 { _ = refused() }
            let grown = try MediaEncoderTests.residentBytes() - before
            if grown >= 16 << 20 {
                print("\(grown >> 20) MB more after 10 000 refused encoders")
                exit(1)
            }
        }
    }
}
