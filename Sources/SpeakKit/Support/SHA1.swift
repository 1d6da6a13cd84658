/// SHA-1 (FIPS 180-4), for the WebSocket handshake's `Sec-WebSocket-Accept` (RFC 6455 names it),
/// and for nothing that needs a secure hash: SHA-1 is broken for that, ``SHA256`` is the one to use.
public enum SHA1 {
    /// The 20-byte digest of `data`.
    public static func digest<Bytes: Sequence>(_ data: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var w = [UInt32](repeating: 0, count: 80)
        HashPadding.forEachBlock(of: data) { block in
            w.replaceSubrange(0..<16, with: block)
            for i in 16..<80 { w[i] = rotatedLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let t = rotatedLeft(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotatedLeft(b, 30), a, t)
            }
            for (index, value) in [a, b, c, d, e].enumerated() { h[index] &+= value }
        }
        return HashPadding.bytes(h)
    }

    private static func rotatedLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
