/// Streaming mono 16-bit sample-rate conversion by linear interpolation.
///
/// It keeps the last input sample and the output clock between chunks, so a signal fed in pieces
/// comes out exactly as if it had been fed whole: no click at the joins, no drift over hours.
public struct Resampler: Sendable {
    public let inputRate: Int
    public let outputRate: Int
    /// Input samples seen before the current chunk.
    private var consumed = 0
    /// Output samples made so far; output `n` lies at input position `n × inputRate / outputRate`.
    private var produced = 0
    /// The input sample at index `consumed - 1`.
    private var previous: Int16 = 0

    public init(inputRate: Int, outputRate: Int) {
        precondition(inputRate > 0 && outputRate > 0, "sample rates must be positive")
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    /// Converts the next chunk; returns the output samples it completed.
    public mutating func process(_ input: UnsafeBufferPointer<Int16>) -> [Int16] {
        guard inputRate != outputRate else { return Array(input) }
        let end = consumed + input.count
        var output: [Int16] = []
        output.reserveCapacity(input.count * outputRate / inputRate + 1)
        // An output sample between the last input sample and the next one waits for the next chunk.
        while true {
            let position = produced * inputRate
            let index = position / outputRate
            guard index + 1 < end else { break }
            output.append(interpolate(sample(index, input), sample(index + 1, input), position % outputRate))
            produced += 1
        }
        if let last = input.last {
            previous = last
            consumed = end
        }
        return output
    }

    public mutating func process(_ input: [Int16]) -> [Int16] {
        input.withUnsafeBufferPointer { process($0) }
    }

    /// The output samples that fall after the last input sample, held at its value.
    public mutating func finish() -> [Int16] {
        guard inputRate != outputRate else { return [] }
        var output: [Int16] = []
        while produced * inputRate / outputRate < consumed {
            output.append(previous)
            produced += 1
        }
        return output
    }

    private func sample(_ index: Int, _ input: UnsafeBufferPointer<Int16>) -> Int {
        index < consumed ? Int(previous) : Int(input[index - consumed])
    }

    private func interpolate(_ a: Int, _ b: Int, _ fraction: Int) -> Int16 {
        Int16(a + ((b - a) * fraction + outputRate / 2) / outputRate)
    }
}
