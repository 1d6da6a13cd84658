import Foundation
import SpeakKit
import SpeakMedia
import Testing

/// WAV headers are checked before any work (issue 11, item 2): a header claiming a 1 Hz rate took
/// a server from 173 MB to 6.2 GB resampling one 190 KB upload 16000-fold.
@Suite("WAV header validation")
struct WAVValidationTests {
    /// One second of a 440 Hz tone at 16 kHz, as a WAV.
    static let tone = WAV.encode(
        PCMBuffer(sampleRate: 16000, samples: (0..<16000).map { Int16(8000 * sin(Double($0) * .pi * 440 / 8000)) }))

    /// `wav` with the little-endian `value` written at byte `offset` (`width` bytes).
    static func patched(_ wav: Data, at offset: Int, _ value: Int, width: Int) -> Data {
        var data = wav
        for byte in 0..<width { data[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        return data
    }

    /// The tone with its sample rate and byte rate (bytes 24–31) claiming `rate`.
    static func claiming(rate: Int) -> Data {
        patched(patched(tone, at: 24, rate, width: 4), at: 28, rate * 2, width: 4)
    }

    static func reason(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as AudioFileError {
            if case .notAudio(let why) = error { return why }
            return "unsupported: \(error)"
        } catch {
            return "other: \(error)"
        }
    }

    @Test(
        "a rate outside 4 kHz–192 kHz is a damaged file, for the reader and the media decoder alike",
        arguments: [1, 100, 3999, 192_001, 0x7FFF_FFFF])
    func rateOutOfRange(rate: Int) throws {
        let wav = Self.claiming(rate: rate)
        // The header check's words: refused before any decoding, so nothing to time.
        for why in [Self.reason { try WAV.decode(wav) }, Self.reason { try MediaDecoder.decode(wav) }] {
            #expect(why?.contains("sample rate \(rate) Hz") == true, "\(why ?? "decoded")")
        }
    }

    @Test("rates at the ends of the range decode, and an old recorder's 6000 Hz", arguments: [4000, 6000, 192_000])
    func rateInRange(rate: Int) throws {
        #expect(try WAV.decode(Self.claiming(rate: rate)).sampleRate == rate)
        #expect(try MediaDecoder.decode(Self.claiming(rate: rate)).duration > 0)
    }

    @Test("channels, bits and block align must agree")
    func inconsistentFormat() throws {
        let cases: [(Data, String)] = [
            (Self.patched(Self.tone, at: 22, 0, width: 2), "0 channels"),
            (Self.patched(Self.tone, at: 22, 300, width: 2), "300 channels"),
            (Self.patched(Self.tone, at: 32, 3, width: 2), "block align 3"),
            (Self.patched(Self.tone, at: 34, 12, width: 2), "12 bits"),
            (Self.patched(Self.tone, at: 16, 8, width: 4), "format chunk of 8 bytes"),
        ]
        for (wav, expected) in cases {
            let why = Self.reason { try WAV.decode(wav) }
            #expect(why?.contains(expected) == true, "\(expected): \(why ?? "decoded")")
            let viaMedia = Self.reason { try MediaDecoder.decode(wav) }
            #expect(viaMedia?.contains(expected) == true, "\(expected): \(viaMedia ?? "decoded")")
        }
    }

    @Test("the samples read are bounded by the bytes present, whatever the sizes claim")
    func sizesBeyondTheData() throws {
        // data size 0x7FFFFFF0 and RIFF size 0xFFFFFFF0 over one second of samples.
        let wav = Self.patched(Self.patched(Self.tone, at: 40, 0x7FFF_FFF0, width: 4), at: 4, 0xFFFF_FFF0, width: 4)
        #expect(try WAV.decode(wav).samples.count == 16000)
        // A truncated header is no audio, not a crash.
        for length in [0, 11, 12, 20, 36, 43] {
            #expect(Self.reason { try WAV.decode(Self.tone.prefix(length)) } != nil)
        }
    }

    @Test("8-bit, 24-bit and float WAVs still reach FFmpeg: only damaged headers are refused")
    func otherDepths() throws {
        // The tone as 24-bit: block align 3, byte rate 48000.
        var wav24 = Data()
        var header = Self.patched(Self.patched(Self.tone.prefix(44), at: 34, 24, width: 2), at: 32, 3, width: 2)
        header = Self.patched(Self.patched(header, at: 28, 48000, width: 4), at: 40, 48000, width: 4)
        wav24.append(header)
        let samples = try WAV.decode(Self.tone).samples
        for sample in samples {
            wav24.append(contentsOf: [0, UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)])
        }
        let wav24Size = wav24.count - 8
        wav24 = Self.patched(wav24, at: 4, wav24Size, width: 4)
        #expect(Self.reason { try WAV.decode(wav24) }?.hasPrefix("unsupported") == true)
        #expect(try MediaDecoder.decode(wav24).samples.count == 16000)
    }
}
