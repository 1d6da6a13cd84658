internal import CMicroHTTPD
import Foundation

/// An upgraded connection as its session sees it: messages in, messages out. Pings are answered
/// and a client's close ends the reading; a frame that breaks the protocol, a
/// client silent for ``idleTimeout``, or the server shutting down closes the connection with the
/// code that says why. Used from the session's one thread.
public final class WebSocketConnection {
    public enum Message: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// The upgraded socket (non-blocking); libmicrohttpd closes it once the session is over.
    private let socket: Int32
    private var reader: WebSocketReader
    let idleTimeout: Int
    let sendTimeout: Int
    private let isEnding: @Sendable () -> Bool
    /// A close frame was sent: nothing more may be.
    private(set) var closeSent = false
    /// The reading is over: the client closed, broke the protocol or went away.
    private(set) var readingEnded = false
    /// Why the connection closed, once it has.
    private(set) var closedWith: WebSocket.CloseCode?

    init(
        socket: Int32, alreadyRead: [UInt8], maximumMessageBytes: Int, idleTimeout: Int, sendTimeout: Int,
        isEnding: @escaping @Sendable () -> Bool
    ) {
        self.socket = socket
        reader = WebSocketReader(maximumMessageBytes: maximumMessageBytes)
        reader.feed(alreadyRead)
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.isEnding = isEnding
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        // libmicrohttpd leaves Nagle's algorithm on for an upgrade: events are small and wanted now.
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The next message, or `nil` once the connection is closing (whatever the reason).
    public func receive() -> Message? {
        while !readingEnded {
            do {
                switch try reader.next() {
                case .text(let text): return .text(text)
                case .binary(let bytes): return .binary(bytes)
                case .ping(let payload): try? sendFrame(.pong, payload)
                case .pong: continue
                case .close(let code, _):
                    readingEnded = true
                    close(code ?? .normal)
                case nil: readMore()
                }
            } catch {
                readingEnded = true
                close(error.code, reason: error.reason)
            }
        }
        return nil
    }

    /// Waits for bytes and feeds them to the reader; ends the reading (closing) when the client
    /// went away, stayed silent too long, or the server is shutting down.
    private func readMore() {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Int32(idleTimeout * 1000))
        if ready < 0 && errno == EINTR { return }
        if isEnding() {
            readingEnded = true
            return close(.goingAway, reason: "the server is shutting down")
        }
        guard ready > 0 else {
            readingEnded = true
            guard ready == 0 else { return close(.internalError, reason: "cannot wait for the client") }
            return close(.policyViolation, reason: "nothing received for \(idleTimeout) s")
        }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            // Gone without a close frame: there is nobody to send one to.
            readingEnded = true
            closeSent = true
            closedWith = closedWith ?? WebSocket.CloseCode(rawValue: 1006)
            return
        }
        reader.feed(chunk[..<count])
    }

    /// Sends a text message; throws once the connection is closing or the client stopped taking bytes.
    public func send(text: String) throws {
        try sendFrame(.text, Array(text.utf8))
    }

    /// Sends a close frame (once) and stops reading.
    public func close(_ code: WebSocket.CloseCode = .normal, reason: String = "") {
        guard !closeSent else { return }
        try? sendFrame(.close, WebSocket.closePayload(code, reason: reason))
        closeSent = true
        closedWith = code
    }

    /// After the session: a close frame if none was sent, then a moment for the client's own
    /// (RFC 6455 has the server close the TCP connection after the handshake).
    func finish() {
        close(isEnding() ? .goingAway : .normal)
        guard !readingEnded else { return }
        let deadline = Date().addingTimeInterval(1)
        while !readingEnded, deadline.timeIntervalSinceNow > 0 {
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { return }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket, &chunk, chunk.count, 0)
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return }
            reader.feed(chunk[..<count])
            while let event = try? reader.next() {
                if case .close = event { return }
            }
        }
    }

    private func sendFrame<Payload: Collection<UInt8>>(_ opcode: WebSocket.Opcode, _ payload: Payload) throws {
        guard !closeSent else { throw HTTPServerError("the WebSocket is closing") }
        let frame = WebSocket.frame(opcode, payload)
        var sent = 0
        while sent < frame.count {
            let count = frame[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK, poll(&entry, 1, Int32(sendTimeout * 1000)) > 0
            else {
                // Half a frame on the wire: the stream can carry nothing more.
                closeSent = true
                readingEnded = true
                closedWith = WebSocket.CloseCode(rawValue: 1006)
                throw HTTPServerError("the client stopped taking the WebSocket's frames")
            }
        }
    }
}
