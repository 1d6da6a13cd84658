import Foundation
import Glibc
import SpeakTestSupport

/// A WebSocket client on a real socket, written apart from the server's code: it sends the
/// handshake, then masked frames (or any bytes), and reads the server's frames as they come.
final class WebSocketClient {
    let descriptor: Int32
    /// The handshake's answer: its status line and headers.
    let head: String
    private var pending: [UInt8] = []

    struct Frame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]
        /// A server's frames must not be.
        var masked = false
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    /// Connects and sends the handshake for `path`, `early` bytes right behind it in the same
    /// write; `head` holds the answer (a 101 or a refusal).
    init(port: Int, path: String, headers: [String: String] = [:], early: [UInt8] = []) throws {
        let descriptor = try WireClient.connect(host: "127.0.0.1", port: port, from: nil).get()
        self.descriptor = descriptor
        // Only so a server that never answers cannot hang the run; nothing waits on this clock.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var lines = [
            "GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        lines += headers.sorted { $0.key < $1.key }.map { "\($0): \($1)" }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + early
        _ = request.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        while true {
            if let end = Self.range(of: Array("\r\n\r\n".utf8), in: received) {
                head = String(decoding: received[..<end], as: UTF8.self)
                pending = Array(received[(end + 4)...])
                return
            }
            guard let more = Self.receive(descriptor) else {
                head = String(decoding: received, as: UTF8.self)
                return
            }
            received += more
        }
    }

    deinit { close(descriptor) }

    var status: Int? { head.split(separator: " ").dropFirst().first.flatMap { Int($0) } }

    func send(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func send(text: String) { send(bytes: clientFrame(1, Array(text.utf8))) }

    /// The server's next frame, or `nil` once it closed the connection.
    func frame() -> Frame? {
        while true {
            if let frame = parse() { return frame }
            guard let more = Self.receive(descriptor) else { return nil }
            pending += more
        }
    }

    /// Frames until the next text one; `nil` if the connection ends first.
    func text() -> String? {
        while let frame = frame() {
            if frame.opcode == 1 { return frame.text }
            if frame.opcode == 8 { return nil }
        }
        return nil
    }

    /// Frames until the close frame, and its code; `nil` if the connection ends without one.
    func closeCode() -> Int? {
        while let frame = frame() { if frame.opcode == 8 { return frame.closeCode } }
        return nil
    }

    /// Whether the server hung up: the read after its last frame finds the end.
    func endsAfterClose() -> Bool {
        while let next = frame() { if next.opcode == 8 { return frame() == nil } }
        return true
    }

    private func parse() -> Frame? {
        guard pending.count >= 2 else { return nil }
        var length = Int(pending[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard pending.count >= 4 else { return nil }
            length = Int(pending[2]) << 8 | Int(pending[3])
            offset = 4
        } else if length == 127 {
            guard pending.count >= 10 else { return nil }
            length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard pending.count >= offset + length else { return nil }
        let frame = Frame(
            opcode: pending[0] & 0x0F, payload: Array(pending[offset..<(offset + length)]),
            masked: pending[1] & 0x80 != 0)
        pending.removeFirst(offset + length)
        return frame
    }

    private static func receive(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(buffer[..<count]) : nil
        }
    }

    private static func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
