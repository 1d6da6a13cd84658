import FuzzDriver

@testable import SpeakServer

// libFuzzer harness: the WebSocket frame reader on arbitrary bytes, fed in pieces of arbitrary
// size, as a client's frames arrive. Built only by Scripts/fuzz.

/// Byte 0: the piece size (1–256); bytes 1–2: the message limit (125 and up); the rest is what a
/// client sent after the handshake. Whatever it sends, the reader holds no more than a frame, a
/// message and a piece, and no message over the limit comes out.
// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzWebSocket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard input.count >= 3 else { return 0 }
    let piece = Int(input[0]) + 1
    let limit = 125 + (Int(input[1]) | Int(input[2]) << 8)
    let bytes = input[3...]
    var reader = WebSocketReader(maximumMessageBytes: limit)
    var start = bytes.startIndex
    while start < bytes.endIndex {
        let end = min(start + piece, bytes.endIndex)
        reader.feed(bytes[start..<end])
        start = end
        do {
            while let event = try reader.next() {
                switch event {
                case .text(let text): precondition(text.utf8.count <= limit, "a text message over the limit")
                case .binary(let payload): precondition(payload.count <= limit, "a binary message over the limit")
                case .ping(let payload), .pong(let payload): precondition(payload.count <= 125)
                case .close: break
                }
            }
        } catch {
            precondition([1002, 1007, 1009].contains(error.code.rawValue), "an unexpected close code")
            return 0
        }
        // Unread: at most a frame's header and payload, and the piece that arrived after it.
        precondition(reader.unread <= 14 + limit + piece, "the reader holds \(reader.unread) bytes")
    }
    return 0
}
