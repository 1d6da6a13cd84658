import Foundation
import SpeakKit

extension HTTPServer {
    /// A close-on-exec TCP listener (SpeakKit's socket layer), so worker processes never inherit it.
    static func listen(host: String, port: Int) throws(HTTPServerError) -> (Int32, Int) {
        do {
            let (descriptor, bound) = try Socket.listen(host: host, port: port, backlog: 1024)
            return (descriptor, bound)
        } catch {
            throw HTTPServerError(error.description)
        }
    }

    /// The local hand-off's Unix socket: this user's alone, since its requests need no token.
    static func listen(socketPath path: String) throws(HTTPServerError) -> Int32 {
        do {
            return try Socket.listen(unixPath: path, backlog: 128)
        } catch {
            throw HTTPServerError(error.description)
        }
    }

    /// A connection on the local socket that opened with a frame request
    /// (``WorkerFrame/requestMarker``, where HTTP opens with a method): a `speak` command handing
    /// its text over. Called on a thread of its own, it answers; the server closes the connection.
    public typealias FramedSession = @Sendable (_ connection: Int32) -> Void

    /// The local socket's acceptor: as ``accept()``, but each connection's first byte says its
    /// protocol. A frame request goes to `framed`; anything else to libmicrohttpd, from this
    /// thread as ``accept()`` does it. Connections that have not spoken yet are polled together
    /// (up to the idle timeout), so one that says nothing holds up no other.
    func acceptSorting(_ framed: @escaping FramedSession) {
        var waiting: [(client: Int32, deadline: Date)] = []
        defer {
            for entry in waiting { closeUnsorted(entry.client) }
            close(listener)
            acceptorDone.signal()
        }
        // Readiness comes from poll; a connection gone before accept must not block it.
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        while true {
            var entries =
                [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + waiting.map { pollfd(fd: $0.client, events: Int16(POLLIN), revents: 0) }
            let soonest = waiting.map(\.deadline).min()
            let timeout = soonest.map { Int32(max(0, ($0.timeIntervalSinceNow * 1000).rounded(.up))) } ?? -1
            if poll(&entries, nfds_t(entries.count), timeout) < 0 && errno != EINTR { return }
            // Shutdown hangs up the listener, which wakes the poll.
            guard let daemon, !stopping.load(ordering: .sequentiallyConsistent) else { return }
            let now = Date()
            for index in waiting.indices.reversed() {
                if entries[index + 1].revents != 0 {
                    sort(waiting.remove(at: index).client, daemon: daemon, framed: framed)
                } else if waiting[index].deadline <= now {
                    closeUnsorted(waiting.remove(at: index).client)
                }
            }
            guard entries[0].revents != 0 else { continue }
            let client = Socket.accept(listener)
            if client < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                if acceptFailed() { return }
                continue
            }
            if admit(client) { waiting.append((client, now.addingTimeInterval(Double(limits.idleTimeout)))) }
        }
    }

    /// A connection that spoke (or hung up): its first byte, left in place, picks the protocol.
    private func sort(_ client: Int32, daemon: OpaquePointer, framed: @escaping FramedSession) {
        var first: UInt8 = 0
        guard recv(client, &first, 1, Int32(MSG_PEEK)) == 1 else { return closeUnsorted(client) }
        guard first == WorkerFrame.requestMarker else { return add(client, to: daemon) }
        // In flight like a request, so a shutdown lets it finish within its grace period.
        inFlight.add(1)
        Thread.detachNewThread { [self] in
            framed(client)
            close(client)
            open.add(-1)
            inFlight.add(-1)
        }
    }

    private func closeUnsorted(_ client: Int32) {
        close(client)
        open.add(-1)
    }
}
