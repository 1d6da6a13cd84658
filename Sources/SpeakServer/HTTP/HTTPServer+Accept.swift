internal import CMicroHTTPD
import Foundation

extension HTTPServer {
    /// Accepts connections until shutdown; past the limit, answers 503 and closes.
    func accept() {
        defer {
            close(listener)
            acceptorDone.signal()
        }
        while true {
            let client = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if stopping.load(ordering: .sequentiallyConsistent) { return }
                // EMFILE and the like: let a descriptor free up rather than spin.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    usleep(10_000)
                    continue
                }
                return
            }
            guard let daemon, !stopping.load(ordering: .sequentiallyConsistent) else {
                close(client)
                return
            }
            if open.add(1) > limits.connections {
                open.add(-1)
                Self.refuse(client)
                continue
            }
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
    }

    private static let refusal: Data = {
        let body =
            #"{"error":{"code":"too_many_connections","message":"too many open connections","#
            + #""param":null,"type":"server_error"}}"#
        return Data(
            ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Retry-After: 1\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }()

    /// A best-effort 503 to a connection over the limit: one non-blocking write, then close.
    private static func refuse(_ client: Int32) {
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        refusal.withUnsafeBytes { _ = Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Closing with the request unread would reset the connection and lose the answer.
        Glibc.shutdown(client, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        _ = recv(client, &scratch, scratch.count, Int32(MSG_DONTWAIT))
        close(client)
    }
}
