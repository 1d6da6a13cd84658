/// Mono 16-bit PCM at a sample rate: what every codec and device in speak exchanges.
public struct PCMBuffer: Sendable, Equatable {
    public var sampleRate: Int
    public var samples: [Int16]

    public init(sampleRate: Int, samples: [Int16] = []) {
        self.sampleRate = sampleRate
        self.samples = samples
    }

    public var duration: Double { Double(samples.count) / Double(sampleRate) }

    /// Root mean square level, 0...1.
    public var rms: Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    /// First and last sample index whose magnitude reaches `threshold` (0...1), or `nil` if silent.
    public func audibleSpan(threshold: Double) -> ClosedRange<Int>? {
        let limit = Int(threshold * 32768)
        guard let first = samples.firstIndex(where: { abs(Int($0)) >= limit }),
            let last = samples.lastIndex(where: { abs(Int($0)) >= limit })
        else { return nil }
        return first...last
    }
}
