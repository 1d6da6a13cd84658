/// What SHA-1 and SHA-256 share (FIPS 180-4, 5.1.1 and 5.2.1): the message padded to 64-byte blocks,
/// each read as sixteen big-endian words, and the state written out big-endian.
enum HashPadding {
    /// Calls `body` with each 64-byte block of `data`, padded, as sixteen big-endian words.
    static func forEachBlock<Bytes: Sequence>(of data: Bytes, _ body: ([UInt32]) -> Void)
    where Bytes.Element == UInt8 {
        var message = Array(data)
        let bitLength = UInt64(message.count) * 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: message.count, by: 64) {
            for i in 0..<16 {
                let j = block + i * 4
                words[i] =
                    UInt32(message[j]) << 24 | UInt32(message[j + 1]) << 16 | UInt32(message[j + 2]) << 8
                    | UInt32(message[j + 3])
            }
            body(words)
        }
    }

    /// The state words as big-endian bytes: the digest.
    static func bytes(_ state: [UInt32]) -> [UInt8] {
        state.flatMap { word in stride(from: 24, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> $0) } }
    }
}
