internal import CMicroHTTPD
import Foundation
import Glibc
import SpeakKit

// WebSocket upgrades: the 101 queued, then the upgraded socket run by its session on a thread of
// its own. libmicrohttpd counts an upgraded connection suspended until its session closes it, so
// shutdown ends every session, and waits for each to close its socket, before MHD_stop_daemon.
extension HTTPServer {
    /// Queues the 101 answer to a WebSocket handshake; past ``Limits/webSockets`` (or once shutdown
    /// began), a 503 instead.
    func upgrade(
        _ response: HTTPResponse, to session: @escaping WebSocket.Session, on connection: OpaquePointer,
        for exchange: Exchange
    ) -> MHD_Result {
        guard upgrades.reserve(limit: limits.webSockets) else {
            let refusal =
                upgrades.isEnding
                ? Self.ending
                : HTTPError(
                    503, "too many WebSocket sessions are open (\(limits.webSockets))", code: "too_many_sessions",
                    headers: [("Retry-After", "1")]
                ).response
            return send(refusal, on: connection, for: exchange)
        }
        guard let reply = MHD_create_response_for_upgrade(upgraded, Unmanaged.passUnretained(self).toOpaque()) else {
            upgrades.release()
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(reply) }
        for (name, value) in response.headers { MHD_add_response_header(reply, name, value) }
        exchange.upgrade = session
        let queued = MHD_queue_response(connection, UInt32(response.status), reply)
        if queued != MHD_Result.YES {
            exchange.upgrade = nil
            upgrades.release()
        }
        return queued
    }

    /// The 101 went out: the socket is the session's, on a new thread. No longer a request in
    /// flight (a session may last hours), it is counted in ``Upgrades`` instead.
    func startSession(_ exchange: Exchange, socket: Int32, alreadyRead: [UInt8], handle: OpaquePointer) {
        let handle = CHandle(handle)
        guard let session = exchange.upgrade else {
            _ = speak_upgrade_close(handle.pointer)
            return
        }
        exchange.upgrade = nil
        exchange.upgraded = true
        inFlight.add(-1)
        guard let id = upgrades.register(socket) else {
            _ = speak_upgrade_close(handle.pointer)
            upgrades.release()
            return
        }
        let limits = limits
        Thread.detachNewThread { [upgrades] in
            let connection = WebSocketConnection(
                socket: socket, alreadyRead: alreadyRead, maximumMessageBytes: limits.webSocketMessageBytes,
                idleTimeout: limits.webSocketIdleTimeout, sendTimeout: limits.sendTimeout,
                isEnding: { upgrades.isEnding })
            session(connection)
            connection.finish()
            // Out of the list first, so shutdown never touches the socket once it may be closed.
            upgrades.unregister(id)
            _ = speak_upgrade_close(handle.pointer)
            upgrades.release()
        }
    }
}

/// libmicrohttpd's call once the 101 is sent: the server is the closure, the exchange the request's state.
func upgraded(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ state: UnsafeMutableRawPointer?,
    _ extra: UnsafePointer<CChar>?, _ extraSize: Int, _ socket: Int32, _ handle: OpaquePointer?
) {
    guard let handle else { return }
    guard let context, let state else {
        _ = speak_upgrade_close(handle)
        return
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    let exchange = Unmanaged<Exchange>.fromOpaque(state).takeUnretainedValue()
    let alreadyRead = extra.map { Array(UnsafeRawBufferPointer(start: $0, count: extraSize)) } ?? []
    server.startSession(exchange, socket: socket, alreadyRead: alreadyRead, handle: handle)
}

/// The WebSocket sessions: slots held (a 101 queued, or a session running) and the sockets of
/// those running, so shutdown can wake each one.
final class Upgrades: Sendable {
    private struct State {
        var ending = false
        var sockets: [Int: Int32] = [:]
        var nextID = 0
    }
    private let state = Locked(State())
    /// Slots held.
    private let held = Gauge()

    var isEnding: Bool { state.withLock { $0.ending } }
    var count: Int { held.value }

    /// Takes a slot; false past `limit` or once ending.
    func reserve(limit: Int) -> Bool {
        guard !isEnding else { return false }
        guard held.add(1) <= limit else {
            held.add(-1)
            return false
        }
        return true
    }

    func release() { held.add(-1) }

    /// A session's socket, to wake at shutdown; `nil` once ending (the session must not start).
    func register(_ socket: Int32) -> Int? {
        state.withLock { state in
            guard !state.ending else { return nil }
            state.nextID += 1
            state.sockets[state.nextID] = socket
            return state.nextID
        }
    }

    func unregister(_ id: Int) {
        state.withLock { state in
            state.sockets[id] = nil
        }
    }

    /// Refuses new sessions and wakes every running one (its reading ends, it closes with 1001),
    /// then waits until all have closed their sockets. One still sending after `grace` seconds
    /// (to a client that stopped reading) has its socket shut for writing too, which fails the send.
    func endAll(grace: TimeInterval = 2) {
        shutAll(SHUT_RD)
        held.wait(untilAtMost: 0, deadline: Date().addingTimeInterval(grace))
        guard held.value > 0 else { return }
        shutAll(SHUT_RDWR)
        // No deadline: libmicrohttpd frees a session's connection at MHD_stop_daemon, and a
        // session still running then would close a freed handle. Each ends within its current
        // step (a decode) once woken.
        held.wait(untilAtMost: 0, deadline: .distantFuture)
    }

    private func shutAll(_ how: Int) {
        state.withLock { state in
            state.ending = true
            for socket in state.sockets.values { Glibc.shutdown(socket, Int32(how)) }
        }
    }
}
