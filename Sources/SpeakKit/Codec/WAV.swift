import Foundation

/// RIFF WAVE files of 16-bit PCM (the only kind speak writes); reading also mixes stereo to mono.
public enum WAV {
    /// A 44-byte header for mono 16-bit PCM. `dataBytes` may be 0 for a stream of unknown length.
    public static func header(sampleRate: Int, dataBytes: Int) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
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
        data.count >= 12 && data.prefix(4) == Data("RIFF".utf8) && data[data.startIndex + 8..<data.startIndex + 12] == Data("WAVE".utf8)
    }

    /// Decodes 16-bit PCM WAV, mixing channels to mono.
    public static func decode(_ data: Data) throws(AudioFileError) -> PCMBuffer {
        let bytes = [UInt8](data)
        guard isWAV(data) else { throw .notAudio("not a RIFF WAVE file") }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var format: (channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt ", body + 16 <= bytes.count {
                guard u16(body) == 1 || u16(body) == 0xFFFE else { throw .unsupported("WAV encoding \(u16(body)) (only PCM)") }
                format = (u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw .notAudio("WAV data before its format") }
                guard format.bits == 16, format.channels > 0 else {
                    throw .unsupported("\(format.bits)-bit WAV with \(format.channels) channels (only 16-bit)")
                }
                // A stream's header may carry size 0 or 0xFFFFFFFF: read to the end then.
                let end = (size == 0 || size == 0xFFFF_FFFF) ? bytes.count : min(bytes.count, body + size)
                let frames = (end - body) / (2 * format.channels)
                var samples = [Int16](repeating: 0, count: frames)
                for frame in 0..<frames {
                    var sum = 0
                    for channel in 0..<format.channels {
                        sum += Int(Int16(bitPattern: UInt16(u16(body + (frame * format.channels + channel) * 2))))
                    }
                    samples[frame] = Int16(sum / format.channels)
                }
                return PCMBuffer(sampleRate: format.rate, samples: samples)
            }
            offset = body + size + (size & 1)
        }
        throw .notAudio("WAV file without audio data")
    }
}
