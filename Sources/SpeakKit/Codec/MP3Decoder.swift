internal import CMpg123
import FoundationEssentials
import Glibc

/// A failure reported by libmpg123.
public struct MPG123Error: CLibraryCodes {
    public static let library = "mpg123"
    public let code: Int32
    public let function: String
    public let message: String

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        message = String(cString: mpg123_plain_strerror(code))
    }

    /// Anything but `MPG123_OK` fails.
    public static func isFailure(_ code: Int32) -> Bool { code != MPG123_OK.rawValue }
}

/// MP3 decoding on libmpg123 in feed mode: whole files, bytes in memory, or a stream fed in pieces
/// (an HTTP body). Output is mono 16-bit PCM at the stream's own rate; stereo is mixed down.
public final class MP3Decoder {
    private let handle: OpaquePointer
    /// The stream's sample rate, known once the first frame has been decoded.
    public private(set) var sampleRate: Int?

    public init() throws(MPG123Error) {
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else { throw MPG123Error(code: error, function: "mpg123_new") }
        self.handle = handle
        do throws(MPG123Error) {
            try MPG123Error.check(
                mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0), "mpg123_param")
            // Only mono 16-bit output is allowed, so libmpg123 mixes stereo down itself.
            try MPG123Error.check(mpg123_format_none(handle), "mpg123_format_none")
            var rates: UnsafePointer<Int>?
            var count = 0
            mpg123_rates(&rates, &count)
            for rate in UnsafeBufferPointer(start: rates, count: count) {
                try MPG123Error.check(
                    mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue)),
                    "mpg123_format")
            }
            try MPG123Error.check(mpg123_open_feed(handle), "mpg123_open_feed")
        } catch {
            mpg123_delete(handle)
            throw error
        }
    }

    deinit { mpg123_delete(handle) }

    /// Feeds the next piece of the stream; returns the samples it completed.
    public func feed(_ bytes: Data) throws(MPG123Error) -> [Int16] {
        var samples: [Int16] = []
        var chunk = [Int16](repeating: 0, count: 8192)
        var input = bytes
        while true {
            var done = 0
            let code = input.withUnsafeBytes { raw in
                chunk.withUnsafeMutableBytes { out in
                    mpg123_decode(
                        handle, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, out.baseAddress, out.count, &done
                    )
                }
            }
            input = Data()
            samples += chunk.prefix(done / 2)
            switch code {
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0
                var channels: Int32 = 0
                var encoding: Int32 = 0
                try MPG123Error.check(mpg123_getformat(handle, &rate, &channels, &encoding), "mpg123_getformat")
                sampleRate = rate
            case MPG123_OK.rawValue: continue
            case MPG123_NEED_MORE.rawValue, MPG123_DONE.rawValue: return samples
            default: throw MPG123Error(code: code, function: "mpg123_decode")
            }
        }
    }

    /// Decodes a whole MP3 in memory.
    public static func decode(_ data: Data) throws -> PCMBuffer {
        let decoder = try MP3Decoder()
        let samples = try decoder.feed(data)
        guard let rate = decoder.sampleRate, !samples.isEmpty else {
            throw AudioFileError.notAudio("neither WAV nor MP3")
        }
        return PCMBuffer(sampleRate: rate, samples: samples)
    }
}
