import SpeakKit

/// Audio coming in for transcription, between `audio-start` and `audio-stop`: whatever PCM the
/// client sends, as 16 kHz mono.
struct AudioRecording {
    let rate: Int
    /// Bytes per sample: 1 (unsigned, as in WAV and the `wyoming` package's converter), or 2 to 4
    /// (signed little-endian).
    let width: Int
    let channels: Int
    var resampler: Resampler
    var samples: [Int16] = []
    /// Bytes of a frame split across two chunks.
    var partial: [UInt8] = []

    init(rate: Int, width: Int, channels: Int) {
        self.rate = rate
        self.width = width
        self.channels = channels
        resampler = Resampler(inputRate: rate, outputRate: WyomingSession.transcriptionRate)
    }

    /// Seconds of audio held, and `bytes` more would add.
    func seconds(adding bytes: Int) -> Double {
        Double(samples.count) / Double(WyomingSession.transcriptionRate)
            + Double((partial.count + bytes) / (width * channels)) / Double(rate)
    }

    /// The sample at `offset` as 16 bits: its two most significant bytes.
    private func sample(_ bytes: [UInt8], at offset: Int) -> Int {
        if width == 1 { return (Int(bytes[offset]) - 128) << 8 }
        let top = offset + width - 1
        return Int(Int16(bitPattern: UInt16(bytes[top - 1]) | UInt16(bytes[top]) << 8))
    }

    mutating func append(_ bytes: [UInt8]) {
        let frameBytes = width * channels
        let all = partial + bytes
        let frames = all.count / frameBytes
        partial = Array(all[(frames * frameBytes)...])
        var mono = [Int16](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum = 0
            for channel in 0..<channels { sum += sample(all, at: frame * frameBytes + channel * width) }
            mono[frame] = Int16(sum / channels)
        }
        samples += resampler.process(mono)
    }
}
