/// Raw PCM in any ``PCMFormat`` to the transcribers' 16 kHz mono, as it arrives: channels mixed,
/// samples cut to 16 bits, one ``Resampler`` across chunks. Chunks may split a frame; the result
/// is the same however the bytes are cut.
public struct PCMConverter: Sendable {
    public let format: PCMFormat
    private var resampler: Resampler
    /// Bytes of a frame split across two chunks.
    private var partial: [UInt8] = []

    public init(_ format: PCMFormat) {
        self.format = format
        resampler = Resampler(inputRate: format.sampleRate, outputRate: TranscriptionEngine.sampleRate)
    }

    /// Seconds the held part of a frame and `bytes` more would add, at the format's rate.
    public func seconds(adding bytes: Int) -> Double {
        Double((partial.count + bytes) / format.frameBytes) / Double(format.sampleRate)
    }

    /// The 16 kHz samples `bytes` complete.
    public mutating func convert(_ bytes: [UInt8]) -> [Int16] {
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
        return convert(mono: mono)
    }

    /// Mono 16-bit samples at the format's rate (its `width` and `channels` are not used).
    public mutating func convert(mono: [Int16]) -> [Int16] {
        mono.withUnsafeBufferPointer { resampler.process($0) }
    }

    /// The last samples the resampler held; a split frame at the end is dropped.
    public mutating func finish() -> [Int16] {
        partial = []
        return resampler.finish()
    }

    /// The sample at `offset` as 16 bits: its two most significant bytes.
    private func sample(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        if format.width == 1 { return (Int(bytes[offset]) - 128) << 8 }
        let top = offset + format.width - 1
        return Int(Int16(bitPattern: UInt16(bytes[top - 1]) | UInt16(bytes[top]) << 8))
    }
}
