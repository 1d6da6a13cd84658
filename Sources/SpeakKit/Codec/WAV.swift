import FoundationEssentials
import Glibc

/// RIFF WAVE files of 16-bit PCM (the only kind speak writes); reading also mixes stereo to mono.
public enum WAV {
    /// A 44-byte header for mono 16-bit PCM. `dataBytes` may be 0 for a stream of unknown length.
    public static func header(sampleRate: Int, dataBytes: Int) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(clamping: 36 + dataBytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(sampleRate))
        append(UInt32(sampleRate * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(clamping: dataBytes))
        return data
    }

    public static func encode(_ pcm: PCMBuffer) -> Data {
        var data = header(sampleRate: pcm.sampleRate, dataBytes: pcm.samples.count * 2)
        pcm.samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    public static func isWAV(_ data: Data) -> Bool {
        data.count >= 12 && data.prefix(4) == Data("RIFF".utf8)
            && data[data.startIndex + 8..<data.startIndex + 12] == Data("WAVE".utf8)
    }

    /// The rates a WAV header may claim. Anything else is a damaged (or hostile) header: a 1 Hz
    /// claim would make a resampler produce 16000 samples for every one present. 4 kHz, not 8: old
    /// recorders wrote 4000, 5512 and 6000 Hz files, which FFmpeg's formats already took.
    public static let sampleRates = 4000...192_000
    public static let channelCounts = 1...32

    /// What a WAV's `fmt ` chunk says, and where its samples are (within the bytes present).
    public struct Format: Sendable, Equatable {
        /// 1 PCM, 3 IEEE float, 0xFFFE extensible (then `subFormat` tells), others compressed.
        public var encoding: Int
        public var channels: Int
        public var sampleRate: Int
        public var blockAlign: Int
        public var bitsPerSample: Int
        /// Byte range of the `data` chunk's samples that is actually there.
        public var samples: Range<Int>

        /// PCM or float, plainly or in a WAVE_FORMAT_EXTENSIBLE header.
        var isLinear: Bool { encoding == 1 || encoding == 3 }
    }

    /// Reads and checks the header: rate 4 kHz–192 kHz, 1–32 channels, and for PCM and float a
    /// whole number of bytes per sample with a block align that agrees. Work is bounded by the
    /// bytes present: every chunk step advances, sizes beyond the end are cut to the end.
    public static func format(of data: Data) throws(AudioFileError) -> Format {
        guard isWAV(data) else { throw .notAudio("not a RIFF WAVE file") }
        let base = data.startIndex
        func u16(_ at: Int) -> Int { Int(data[base + at]) | Int(data[base + at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var header: (encoding: Int, channels: Int, rate: Int, align: Int, bits: Int)?
        while offset + 8 <= data.count {
            let id = String(decoding: data[base + offset..<base + offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= data.count else {
                    throw .notAudio("WAV format chunk of \(size) bytes (\(data.count - body) present); it needs 16")
                }
                var encoding = u16(body)
                // WAVE_FORMAT_EXTENSIBLE: the real encoding is the sub-format GUID's first two bytes.
                if encoding == 0xFFFE, size >= 40, body + 26 <= data.count { encoding = u16(body + 24) }
                header = (encoding, u16(body + 2), u32(body + 4), u16(body + 12), u16(body + 14))
                try check(header!)
            } else if id == "data" {
                guard let header else { throw .notAudio("WAV data before its format") }
                // A stream's header may carry size 0 or 0xFFFFFFFF: read to the end then.
                let end = (size == 0 || size == 0xFFFF_FFFF) ? data.count : min(data.count, body + size)
                return Format(
                    encoding: header.encoding, channels: header.channels, sampleRate: header.rate,
                    blockAlign: header.align, bitsPerSample: header.bits, samples: body..<max(body, end))
            }
            offset = body + size + (size & 1)
        }
        throw .notAudio("WAV file without audio data")
    }

    private static func check(
        _ header: (encoding: Int, channels: Int, rate: Int, align: Int, bits: Int)
    ) throws(AudioFileError) {
        guard sampleRates.contains(header.rate) else {
            throw .notAudio("WAV header claims a sample rate \(header.rate) Hz; WAV audio is 4000–192000 Hz")
        }
        guard channelCounts.contains(header.channels) else {
            throw .notAudio("WAV header claims \(header.channels) channels; 1–32 are possible")
        }
        // Compressed encodings (ADPCM, mu-law, GSM) have their own block sizes: FFmpeg checks those.
        guard header.encoding == 1 || header.encoding == 3 else { return }
        guard [8, 16, 24, 32, 64].contains(header.bits) else {
            throw .notAudio("WAV header claims \(header.bits) bits per sample; PCM has 8, 16, 24 or 32")
        }
        guard header.align == header.channels * header.bits / 8 else {
            throw .notAudio(
                "WAV header claims block align \(header.align); \(header.channels) channels of \(header.bits) bits "
                    + "take \(header.channels * header.bits / 8)")
        }
    }

    /// Decodes 16-bit PCM WAV, mixing channels to mono. The header is checked first (`format(of:)`).
    public static func decode(_ data: Data) throws(AudioFileError) -> PCMBuffer {
        let format = try format(of: data)
        guard format.isLinear else { throw .unsupported("WAV encoding \(format.encoding) (only PCM)") }
        guard format.encoding == 1, format.bitsPerSample == 16 else {
            throw .unsupported("\(format.bitsPerSample)-bit WAV with \(format.channels) channels (only 16-bit)")
        }
        let frames = format.samples.count / format.blockAlign
        var samples = [Int16](repeating: 0, count: frames)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let start = format.samples.lowerBound
            for frame in 0..<frames {
                var sum = 0
                for channel in 0..<format.channels {
                    let at = start + (frame * format.channels + channel) * 2
                    sum += Int(Int16(bitPattern: UInt16(raw[at]) | UInt16(raw[at + 1]) << 8))
                }
                samples[frame] = Int16(sum / format.channels)
            }
        }
        return PCMBuffer(sampleRate: format.sampleRate, samples: samples)
    }
}
