internal import CMicroHTTPD
import Foundation

// Sending replies, and how long a client may take to read one.
extension HTTPServer {
    /// Queues `response` for `exchange`. From here until the request completes the connection
    /// waits `sendTimeout` (not `idleTimeout`) for the client to take more of the reply.
    func send(
        _ response: HTTPResponse, on connection: OpaquePointer, for exchange: Exchange, stream: ResponseStream? = nil
    )
        -> MHD_Result
    {
        let reply: OpaquePointer?
        var length: Int?
        if let stream {
            // UInt64.max is MHD_SIZE_UNKNOWN: chunked.
            reply = MHD_create_response_from_callback(
                UInt64.max, 16 * 1024, readStream,
                Unmanaged.passRetained(stream).toOpaque(), releaseStream)
        } else if case .data(let data) = response.body {
            length = data.count
            reply = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                    MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        } else {
            return send(HTTPError(500, "a deferred response nested in another").response, on: connection, for: exchange)
        }
        guard let reply else { return MHD_Result.NO }
        defer { MHD_destroy_response(reply) }
        for (name, value) in response.headers { MHD_add_response_header(reply, name, value) }
        if stopping.load(ordering: .relaxed) { MHD_add_response_header(reply, "Connection", "close") }
        let queued = MHD_queue_response(connection, UInt32(response.status), reply)
        if queued == MHD_Result.YES {
            exchange.reply = (length, stream)
            if stream != nil || (length ?? 0) > Self.replySendBuffer { Self.boundSendBuffer(of: connection) }
            if limits.sendTimeout != limits.idleTimeout {
                speak_set_connection_timeout(connection, UInt32(limits.sendTimeout))
            }
        }
        return queued
    }

    /// What the kernel may hold of a long reply on its way to the client. The send timeout counts
    /// from libmicrohttpd's last write, so a socket left to grow its buffer (to 4 MB) would cut off
    /// a steady reader slower than the server: a full buffer can take it longer than the timeout to
    /// drain, with no write meanwhile. 128 KiB (the kernel doubles it) still fills a 50 ms round
    /// trip at 5 MB/s.
    static let replySendBuffer = 128 << 10

    private static func boundSendBuffer(of connection: OpaquePointer) {
        let socket = speak_connection_socket(connection)
        guard socket >= 0 else { return }
        var bytes = Int32(replySendBuffer)
        setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The request is over: its connection waits `idleTimeout` again for the next one. A reply
    /// the client stopped taking is logged, once.
    func completed(_ exchange: Exchange, on connection: OpaquePointer?, reason: MHD_RequestTerminationCode) {
        // A WebSocket's connection left the requests in flight when it was upgraded.
        if exchange.upgraded { return }
        // A 101 queued, but the connection ended before the upgrade: its slot is free.
        if exchange.upgrade != nil { upgrades.release() }
        inFlight.add(-1)
        guard let reply = exchange.reply else { return }
        // MHD_REQUEST_TERMINATED_COMPLETED_OK and _TIMEOUT_REACHED.
        if reason.rawValue == 0, let connection, limits.sendTimeout != limits.idleTimeout {
            speak_set_connection_timeout(connection, UInt32(limits.idleTimeout))
        } else if reason.rawValue == 2 {
            let sent =
                reply.stream.map { "after \($0.bytesHandedOut) bytes" }
                ?? "part way through its \(reply.bytes ?? 0) bytes"
            let request = exchange.request
            FileHandle.standardError.write(
                Data(
                    ("speak serve: \(request.method) \(request.path): reply abandoned \(sent): the client took "
                        + "nothing for \(limits.sendTimeout) s\n").utf8))
        }
    }

    /// Answers `response` at once on a connection whose body is still arriving, and closes it:
    /// libmicrohttpd can queue no reply mid-body, so it is written straight to the socket, and
    /// refusing the request (`NO`) makes libmicrohttpd close the connection without reading on.
    func abandonUpload(answering response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let socket = speak_connection_socket(connection)
        if socket >= 0 {
            Self.wire(response).withUnsafeBytes {
                _ = Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            Glibc.shutdown(socket, Int32(SHUT_WR))
        }
        return MHD_Result.NO
    }

    /// `response` (a `.data` one) as bytes on the wire, with `Connection: close`; only its head
    /// when `headOnly`.
    static func wire(_ response: HTTPResponse, headOnly: Bool = false) -> Data {
        guard case .data(let body) = response.body else { return Data() }
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\nContent-Length: \(body.count)\r\n\r\n"
        return Data(head.utf8) + (headOnly ? Data() : body)
    }
}
