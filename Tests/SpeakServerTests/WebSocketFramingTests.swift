import Foundation
import SpeakKit
import Testing

@testable import SpeakServer

/// A client's frame, masked as RFC 6455 requires of clients (or not, to test the refusal).
func clientFrame(
    _ opcode: UInt8, _ payload: [UInt8], final: Bool = true, masked: Bool = true, reserved: UInt8 = 0,
    mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
) -> [UInt8] {
    var frame: [UInt8] = [(final ? 0x80 : 0) | reserved << 4 | opcode]
    let maskBit: UInt8 = masked ? 0x80 : 0
    switch payload.count {
    case ..<126: frame.append(maskBit | UInt8(payload.count))
    case ..<65536: frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default: frame += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
    }
    guard masked else { return frame + payload }
    return frame + mask + payload.enumerated().map { $1 ^ mask[$0 & 3] }
}

@Suite("WebSocket framing (RFC 6455)")
struct WebSocketFramingTests {
    /// Every event `bytes` makes, fed `piece` bytes at a time, and the failure that ended them.
    static func read(_ bytes: [UInt8], piece: Int = .max, limit: Int = 1 << 20) -> (
        [WebSocketReader.Event], WebSocketReader.Failure?
    ) {
        var reader = WebSocketReader(maximumMessageBytes: limit)
        var events: [WebSocketReader.Event] = []
        var offset = 0
        repeat {
            reader.feed(bytes[offset..<min(bytes.count, offset + piece)])
            offset = min(bytes.count, offset + piece)
            do {
                while let event = try reader.next() { events.append(event) }
            } catch {
                return (events, error)
            }
        } while offset < bytes.count
        return (events, nil)
    }

    @Test(
        "SHA-1 gives FIPS 180's digests",
        arguments: [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"), ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
            ),
            (String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ])
    func sha1(input: String, digest: String) {
        #expect(SHA1.digest(Array(input.utf8)).map { String(format: "%02x", $0) }.joined() == digest)
    }

    @Test("the handshake's accept key is RFC 6455's for its sample key")
    func acceptKey() {
        #expect(WebSocket.acceptKey("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("a handshake is answered 101 with the accept key; a request that is not one, 426 or 400")
    func handshake() throws {
        let good = [
            "upgrade": "WebSocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        let answer = try WebSocket.upgrade(HTTPRequest(method: "GET", path: "/", headers: good)) { _ in }
        #expect(answer.status == 101)
        #expect(answer.headers.contains { $0 == ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") })
        func status(_ change: (inout [String: String]) -> Void) -> Int? {
            var headers = good
            change(&headers)
            do {
                _ = try WebSocket.upgrade(HTTPRequest(method: "GET", path: "/", headers: headers)) { _ in }
                return nil
            } catch {
                return error.status
            }
        }
        #expect(status { $0["upgrade"] = nil } == 426)
        #expect(status { $0["connection"] = "keep-alive" } == 400)
        #expect(status { $0["sec-websocket-version"] = "8" } == 426)
        #expect(status { $0["sec-websocket-key"] = "c2hvcnQ=" } == 400)
        #expect(status { $0["sec-websocket-key"] = nil } == 400)
    }

    @Test("RFC 6455's masked \"Hello\", whole or a byte at a time")
    func maskedHello() {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(Self.read(bytes).0 == [.text("Hello")])
        #expect(Self.read(bytes, piece: 1) == ([.text("Hello")], nil))
    }

    @Test("fragments join into one message, a ping between them answered on its own; 16- and 64-bit lengths")
    func fragmentsAndLengths() {
        let fragmented =
            clientFrame(1, Array("Hel".utf8), final: false) + clientFrame(9, [1, 2])
            + clientFrame(0, Array("lo".utf8), final: false) + clientFrame(0, [], final: true)
        #expect(Self.read(fragmented, piece: 3) == ([.ping([1, 2]), .text("Hello")], nil))
        // "é" split between two fragments is still UTF-8 once joined.
        let split = clientFrame(1, [0xC3], final: false) + clientFrame(0, [0xA9])
        #expect(Self.read(split).0 == [.text("é")])
        let medium = [UInt8](repeating: 7, count: 300)
        let large = [UInt8](repeating: 9, count: 70_000)
        #expect(
            Self.read(clientFrame(2, medium) + clientFrame(2, large), piece: 4096).0 == [
                .binary(medium), .binary(large),
            ])
    }

    @Test(
        "frames that break the protocol fail with 1002",
        arguments: [
            ("unmasked", clientFrame(1, Array("hi".utf8), masked: false)),
            ("reserved bit", clientFrame(1, Array("hi".utf8), reserved: 4)),
            ("unknown opcode", clientFrame(3, [])),
            ("fragmented ping", clientFrame(9, [], final: false)),
            ("ping over 125 bytes", clientFrame(9, [UInt8](repeating: 0, count: 126))),
            ("continuation first", clientFrame(0, Array("x".utf8))),
            ("new message mid-message", clientFrame(1, [0x61], final: false) + clientFrame(1, [0x62])),
            ("one-byte close", clientFrame(8, [3])),
            ("reserved close code", clientFrame(8, [0x03, 0xED])),
            ("64-bit length with its top bit", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
        ])
    func protocolErrors(name: String, bytes: [UInt8]) {
        let (_, failure) = Self.read(bytes)
        #expect(failure?.code == .protocolError, "\(name)")
    }

    @Test("a message over the limit fails with 1009 from its header alone, or as its fragments add up")
    func tooBig() {
        // The header of a 2 MiB frame, and no payload: nothing is waited for.
        let header = Array(clientFrame(2, [UInt8](repeating: 0, count: 2 << 20)).prefix(14))
        #expect(Self.read(header, limit: 1024).1?.code == .messageTooBig)
        let fragments =
            clientFrame(2, [UInt8](repeating: 0, count: 600), final: false)
            + clientFrame(0, [UInt8](repeating: 0, count: 600))
        #expect(Self.read(fragments, limit: 1024).1?.code == .messageTooBig)
        #expect(Self.read(fragments, limit: 1200).1 == nil, "at the limit is within it")
        // Control frames are bounded by 125 bytes, not by the message limit.
        #expect(Self.read(clientFrame(9, [UInt8](repeating: 1, count: 125)), limit: 125).0.count == 1)
    }

    @Test("text that is not UTF-8 fails with 1007, as does a close reason")
    func invalidText() {
        #expect(Self.read(clientFrame(1, [0x61, 0xFF])).1?.code == .invalidData)
        #expect(Self.read(clientFrame(1, [0xC3], final: false) + clientFrame(0, [0x28])).1?.code == .invalidData)
        #expect(Self.read(clientFrame(8, [0x03, 0xE8, 0xFF])).1?.code == .invalidData)
    }

    @Test("a close frame ends the reading: its code and reason, and nothing after it")
    func close() {
        let bytes = clientFrame(8, [0x03, 0xE8] + Array("bye".utf8)) + clientFrame(1, Array("late".utf8))
        #expect(Self.read(bytes) == ([.close(.normal, reason: "bye")], nil))
        #expect(Self.read(clientFrame(8, [])).0 == [.close(nil, reason: "")])
    }

    @Test("a server's frames: unmasked, with the length in 7, 16 or 64 bits")
    func serverFrames() {
        for count in [0, 125, 126, 65535, 65536] {
            let frame = WebSocket.frame(.binary, [UInt8](repeating: 5, count: count))
            let header = count < 126 ? 2 : count < 65536 ? 4 : 10
            #expect(frame.count == header + count)
            #expect(frame[0] == 0x82 && frame[1] & 0x80 == 0)
            let length =
                count < 126
                ? Int(frame[1])
                : count < 65536
                    ? Int(frame[2]) << 8 | Int(frame[3])
                    : frame[2..<10].reduce(0) { $0 << 8 | Int($1) }
            #expect(length == count)
        }
        // A close reason cut to fit 125 bytes does not split a character.
        let payload = WebSocket.closePayload(.goingAway, reason: String(repeating: "é", count: 100))
        #expect(payload.count <= 125 && String(validating: payload[2...], as: UTF8.self) != nil)
    }
}
