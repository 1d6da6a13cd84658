/// Raw PCM in any ``PCMFormat``, converted to the transcribers' 16 kHz mono as it arrives, so a
/// recording sent in chunks (Wyoming's `audio-chunk`s) is held once, at 16 kHz, never whole at its
/// own rate. Chunks may split a frame; the conversion is the same however the bytes are cut.
///
/// Made by ``TranscriptionEngine/input(_:)`` and handed back to the engine's `transcribe(_:options:)`.
public struct TranscriptionInput: Sendable {
    public let format: PCMFormat
    /// The audio so far, at 16 kHz.
    public private(set) var samples: [Int16] = []
    private var resampler: Resampler
    /// Bytes of a frame split across two chunks.
    private var partial: [UInt8] = []

    init(format: PCMFormat) {
        self.format = format
        resampler = Resampler(inputRate: format.sampleRate, outputRate: TranscriptionEngine.sampleRate)
    }

    /// Seconds of audio held, and `bytes` more would add: for a limit checked before a chunk is
    /// converted (a megabyte of 1 kHz 8-bit audio is 32 MB at 16 kHz).
    public func seconds(adding bytes: Int) -> Double {
        Double(samples.count) / Double(TranscriptionEngine.sampleRate)
            + Double((partial.count + bytes) / format.frameBytes) / Double(format.sampleRate)
    }

    public mutating func append(_ bytes: [UInt8]) {
        let frameBytes = format.frameBytes
        let all = partial.isEmpty ? bytes : partial + bytes
        let frames = all.count / frameBytes
        partial = Array(all[(frames * frameBytes)...])
        var mono = [Int16](repeating: 0, count: frames)
        let channels = format.channels
        all.withUnsafeBufferPointer { all in
            for frame in 0..<frames {
                var sum = 0
                for channel in 0..<channels { sum += sample(all, at: frame * frameBytes + channel * format.width) }
                mono[frame] = Int16(sum / channels)
            }
        }
        samples += resampler.process(mono)
    }

    /// Mono 16-bit samples at the format's rate (its `width` and `channels` are not used).
    public mutating func append(mono: UnsafeBufferPointer<Int16>) {
        samples += resampler.process(mono)
    }

    /// The whole recording at 16 kHz, its last samples included; a split frame at the end is dropped.
    public mutating func finish() -> PCMBuffer {
        samples += resampler.finish()
        return PCMBuffer(sampleRate: TranscriptionEngine.sampleRate, samples: samples)
    }

    /// The sample at `offset` as 16 bits: its two most significant bytes.
    private func sample(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        if format.width == 1 { return (Int(bytes[offset]) - 128) << 8 }
        let top = offset + format.width - 1
        return Int(Int16(bitPattern: UInt16(bytes[top - 1]) | UInt16(bytes[top]) << 8))
    }
}
