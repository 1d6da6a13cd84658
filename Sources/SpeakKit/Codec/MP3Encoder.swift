internal import CLame
import FoundationEssentials
import Glibc

/// A failure reported by LAME.
public struct LameError: CLibraryCodes {
    public static let library = "LAME"
    public let code: Int32
    public let function: String
    public let message: String

    /// LAME returns a byte count, or a negative code on failure.
    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        message =
            switch code {
            case -1: "output buffer too small"
            case -2: "out of memory"
            case -3: "parameters not initialised"
            case -4: "psychoacoustic model failed"
            default: "invalid parameters"
            }
    }

    public static func isFailure(_ code: Int32) -> Bool { code < 0 }
}

/// MP3 output settings: mono, constant bit rate.
public struct MP3Settings: Sendable, Equatable {
    public static let sampleRates = [16000, 22050, 24000]
    public static let bitrates = 32...64

    public var sampleRate: Int
    /// Kilobits per second.
    public var bitrate: Int

    public init(sampleRate: Int = 22050, bitrate: Int = 32) {
        self.sampleRate = sampleRate
        self.bitrate = bitrate
    }
}

/// Mono constant-bit-rate MP3 encoding on LAME; resamples from the input rate when they differ.
public final class MP3Encoder {
    private let lame: OpaquePointer

    /// The output is a plain stream of frames, with no Info tag to patch in afterwards: it can go
    /// straight to a file or a socket. (At 32 kbps LAME's tag does not fit in a frame anyway, so
    /// decoders keep LAME's ~50 ms encoder delay as leading silence.)
    public init(inputRate: Int, settings: MP3Settings = .init()) throws(LameError) {
        guard let lame = lame_init() else { throw LameError(code: -2, function: "lame_init") }
        self.lame = lame
        lame_set_in_samplerate(lame, Int32(inputRate))
        lame_set_out_samplerate(lame, Int32(settings.sampleRate))
        lame_set_num_channels(lame, 1)
        lame_set_mode(lame, MONO)
        lame_set_VBR(lame, vbr_off)
        lame_set_brate(lame, Int32(settings.bitrate))
        lame_set_quality(lame, 5)
        lame_set_bWriteVbrTag(lame, 0)
        lame_set_write_id3tag_automatic(lame, 0)
        do throws(LameError) {
            _ = try LameError.check(lame_init_params(lame), "lame_init_params")
        } catch {
            lame_close(lame)
            throw error
        }
    }

    deinit { lame_close(lame) }

    /// Encodes PCM at the input rate; returns whatever MP3 frames are complete.
    public func encode(_ samples: [Int16]) throws(LameError) -> Data {
        guard !samples.isEmpty else { return Data() }
        // LAME's documented worst case: 1.25 × samples + 7200 bytes.
        var output = [UInt8](repeating: 0, count: samples.count * 5 / 4 + 7200)
        let count = try samples.withUnsafeBufferPointer { input throws(LameError) in
            try LameError.check(
                lame_encode_buffer(lame, input.baseAddress, nil, Int32(input.count), &output, Int32(output.count)),
                "lame_encode_buffer")
        }
        return Data(output.prefix(Int(count)))
    }

    /// Flushes the last frames.
    public func finish() throws(LameError) -> Data {
        var output = [UInt8](repeating: 0, count: 7200)
        let count = try LameError.check(lame_encode_flush(lame, &output, Int32(output.count)), "lame_encode_flush")
        return Data(output.prefix(Int(count)))
    }

    /// A whole file from PCM.
    public static func encodeFile(_ pcm: PCMBuffer, settings: MP3Settings = .init()) throws(LameError) -> Data {
        let encoder = try MP3Encoder(inputRate: pcm.sampleRate, settings: settings)
        return try encoder.encode(pcm.samples) + encoder.finish()
    }
}
