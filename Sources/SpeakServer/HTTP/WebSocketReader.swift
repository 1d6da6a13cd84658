/// Reads a client's WebSocket frames (RFC 6455 section 5) from bytes fed as they arrive: whole
/// messages, their fragments joined, with control frames (ping, pong, close) as they come between
/// them. A frame that breaks the protocol ends the reading with the close code to send: 1002 for
/// bad framing (an unmasked frame, reserved bits, an unknown opcode, a fragment out of place, a
/// control frame fragmented or over 125 bytes), 1009 for a message over the limit (known from
/// its frame's header, before its payload is taken in), 1007 for text that is not UTF-8.
///
/// Memory is bounded by the caller feeding only when ``next()`` has nothing: what is held is then
/// at most one frame, one message (``maximumMessageBytes``) and the last piece fed.
struct WebSocketReader {
    enum Event: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// The client's close frame: its code (none if it sent an empty one) and reason.
        case close(WebSocket.CloseCode?, reason: String)
    }

    struct Failure: Error, Sendable, Equatable {
        let code: WebSocket.CloseCode
        let reason: String
    }

    let maximumMessageBytes: Int
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` begin.
    private var start = 0
    /// The data message being put together from its fragments.
    private var message: [UInt8] = []
    private var messageOpcode: WebSocket.Opcode?
    /// After a close or a failure nothing more is read.
    private var ended = false

    init(maximumMessageBytes: Int) {
        self.maximumMessageBytes = maximumMessageBytes
    }

    /// Bytes not yet made into events.
    var unread: Int { buffer.count - start }

    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        guard !ended else { return }
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += bytes
    }

    /// The next event, or `nil` until more bytes are fed (and for ever after a close).
    mutating func next() throws(Failure) -> Event? {
        while !ended {
            guard let event = try nextFrame() else { return nil }
            if let event { return event }
        }
        return nil
    }

    /// One frame: `nil` if it has not all arrived, `.some(nil)` for a fragment that ends no message.
    private mutating func nextFrame() throws(Failure) -> Event?? {
        guard unread >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        let final = first & 0x80 != 0
        guard first & 0x70 == 0 else { throw fail(.protocolError, "reserved bits set, with no extension agreed") }
        guard let opcode = WebSocket.Opcode(rawValue: first & 0x0F) else {
            throw fail(.protocolError, "unknown opcode \(first & 0x0F)")
        }
        guard second & 0x80 != 0 else { throw fail(.protocolError, "a client's frames must be masked") }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard final else { throw fail(.protocolError, "a control frame cannot be fragmented") }
            guard shortLength <= 125 else { throw fail(.protocolError, "a control frame carries 125 bytes at most") }
        } else if opcode == .continuation {
            guard messageOpcode != nil else { throw fail(.protocolError, "a continuation frame with no message begun") }
        } else if messageOpcode != nil {
            throw fail(.protocolError, "a new message began before the last one's final fragment")
        }
        let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        guard unread >= 2 + lengthBytes else { return nil }
        var length = UInt64(shortLength)
        if lengthBytes > 0 {
            length = (0..<lengthBytes).reduce(0) { $0 << 8 | UInt64(buffer[start + 2 + $1]) }
            guard length >> 63 == 0 else { throw fail(.protocolError, "a frame length's top bit must be 0") }
        }
        if !opcode.isControl, length > UInt64(maximumMessageBytes - message.count) {
            throw fail(.messageTooBig, "a message may be \(maximumMessageBytes) bytes at most")
        }
        let header = 2 + lengthBytes + 4
        guard unread >= header + Int(length) else { return nil }
        let mask = buffer[(start + header - 4)..<(start + header)].map { $0 }
        var payload = Array(buffer[(start + header)..<(start + header + Int(length))])
        for index in payload.indices { payload[index] ^= mask[index & 3] }
        start += header + Int(length)
        switch opcode {
        case .ping: return .some(.ping(payload))
        case .pong: return .some(.pong(payload))
        case .close: return .some(try close(payload))
        case .continuation, .text, .binary:
            if opcode != .continuation { messageOpcode = opcode }
            message += payload
            guard final else { return .some(nil) }
            defer {
                message = []
                messageOpcode = nil
            }
            guard messageOpcode == .text else { return .some(.binary(message)) }
            guard let text = String(validating: message, as: UTF8.self) else {
                throw fail(.invalidData, "a text message that is not UTF-8")
            }
            return .some(.text(text))
        }
    }

    private mutating func close(_ payload: [UInt8]) throws(Failure) -> Event {
        ended = true
        guard !payload.isEmpty else { return .close(nil, reason: "") }
        guard payload.count >= 2 else { throw fail(.protocolError, "a close frame's code takes two bytes") }
        let code = WebSocket.CloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw fail(.protocolError, "close code \(code) may not be sent") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw fail(.invalidData, "a close reason that is not UTF-8")
        }
        return .close(code, reason: reason)
    }

    private mutating func fail(_ code: WebSocket.CloseCode, _ reason: String) -> Failure {
        ended = true
        buffer = []
        start = 0
        message = []
        return Failure(code: code, reason: reason)
    }
}
