internal import CMicroHTTPD
import Foundation
import SpeakKit

extension HTTPServer {
    /// Accepts connections until shutdown; past the limit, answers 503 and closes.
    func accept() {
        defer {
            close(listener)
            acceptorDone.signal()
        }
        while true {
            let client = Socket.accept(listener)
            if client < 0 {
                if acceptFailed() { return }
                continue
            }
            guard let daemon, !stopping.load(ordering: .sequentiallyConsistent) else {
                close(client)
                return
            }
            if admit(client) { add(client, to: daemon) }
        }
    }

    /// After `accept` failed: whether the acceptor is done (shutdown, or the listener broke).
    func acceptFailed() -> Bool {
        if errno == EINTR || errno == ECONNABORTED { return false }
        if stopping.load(ordering: .sequentiallyConsistent) { return true }
        // EMFILE and the like: let a descriptor free up rather than spin.
        if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
            usleep(10_000)
            return false
        }
        return true
    }

    /// Counts a new connection open and says it is to be served; past the limit, answers it
    /// instead (a `/health`, else the 503).
    func admit(_ client: Int32) -> Bool {
        guard open.add(1) > limits.connections else { return true }
        open.add(-1)
        if healthChecks.add(1) > limits.healthSlots {
            healthChecks.add(-1)
            Self.refuse(client)
        } else {
            Thread.detachNewThread { [self] in
                answerHealthOnly(client)
                healthChecks.add(-1)
            }
        }
        return false
    }

    /// Hands an admitted connection to libmicrohttpd, which closes it.
    func add(_ client: Int32, to daemon: OpaquePointer) {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(client, $0, &length) }
        }
        let added = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                MHD_add_connection(daemon, client, named == 0 ? $0 : nil, named == 0 ? length : 0)
            }
        }
        // libmicrohttpd closed the socket; it will not report this connection closed.
        if added != MHD_Result.YES { open.add(-1) }
    }

    private static let refusal: Data = {
        let body =
            #"{"error":{"code":"too_many_connections","message":"too many open connections","#
            + #""param":null,"type":"server_error"}}"#
        return Data(
            ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Retry-After: 1\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }()

    /// Seconds a connection past the limit has to send its request's head.
    static let healthCheckSeconds = 2.0

    /// A connection past the limit: its request's head is read, for a moment at most; `GET` or
    /// `HEAD /health` is answered as usual, anything else gets the 503.
    private func answerHealthOnly(_ client: Int32) {
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        let head = Self.requestHead(client, deadline: Date().addingTimeInterval(Self.healthCheckSeconds))
        let words = head.split(separator: "\r\n", maxSplits: 1).first?.split(separator: " ") ?? []
        guard words.count == 3, ["GET", "HEAD"].contains(words[0]),
            originPath(String(words[1])).split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
                == "/health"
        else { return Self.refuse(client) }
        let request = HTTPRequest(method: "GET", path: "/health")
        let answer = screen(request) ?? handler(request)
        guard case .data = answer.body else { return Self.refuse(client) }
        Self.refuse(client, with: Self.wire(answer, headOnly: words[0] == "HEAD"))
    }

    /// What arrives up to the end of a request's head (8 KiB at most), or until `deadline`.
    private static func requestHead(_ client: Int32, deadline: Date) -> String {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 8192)
        while received.count < buffer.count, received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let wait = Int32(deadline.timeIntervalSinceNow * 1000)
            var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard wait > 0, poll(&entry, 1, wait) == 1 else { break }
            let count = recv(client, &buffer, buffer.count - received.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A best-effort answer (the 503) to a connection over the limit: one non-blocking write, then close.
    private static func refuse(_ client: Int32, with answer: Data = refusal) {
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        answer.withUnsafeBytes { _ = Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Closing with the request unread would reset the connection and lose the answer.
        Glibc.shutdown(client, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        _ = recv(client, &scratch, scratch.count, Int32(MSG_DONTWAIT))
        close(client)
    }
}
