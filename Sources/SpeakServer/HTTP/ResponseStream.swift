internal import CMicroHTTPD
import Foundation
import SpeakKit

/// Chunks written by a producer thread, read by libmicrohttpd when the socket can take them.
/// With nothing to read the connection is suspended, and the next write resumes it. Its state is
/// changed only inside the lock of ``Suspensions``, which must see every suspension.
final class ResponseStream: Sendable {
    private let connection: CHandle
    private let suspensions: Suspensions
    private struct State {
        var pending = Data()
        var finished = false
        var failed = false
        var suspended = false
        var closed = false
        /// Bytes libmicrohttpd has taken to send.
        var handedOut = 0
    }
    /// Taken inside the suspensions' lock, never the other way round.
    private let state = Locked(State())

    init(connection: OpaquePointer, suspensions: Suspensions) {
        self.connection = CHandle(connection)
        self.suspensions = suspensions
    }

    /// Runs `body` holding the suspensions' lock, then this stream's.
    private func withLocks<Result: Sendable, Failure: Error>(
        _ body: (inout Suspensions.Registry, inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try suspensions.registry.withLock { (registry) throws(Failure) in
            try state.withLock { (state) throws(Failure) in try body(&registry, &state) }
        }
    }

    /// The first bytes, before the response is queued.
    func prime(_ data: Data) { withLocks { _, state in state.pending.append(data) } }

    func write(_ data: Data) throws {
        try withLocks { (registry, state) throws(HTTPServerError) in
            guard !state.closed, !registry.ending else { throw HTTPServerError("client went away") }
            state.pending.append(data)
            if state.suspended { resume(&registry, &state) }
        }
    }

    func finish(failed: Bool) {
        withLocks { registry, state in
            state.finished = true
            state.failed = state.failed || failed
            if state.suspended && !state.closed { resume(&registry, &state) }
        }
    }

    /// Under the locks.
    private func resume(_ registry: inout Suspensions.Registry, _ state: inout State) {
        state.suspended = false
        registry.streams[ObjectIdentifier(self)] = nil
        MHD_resume_connection(connection.pointer)
    }

    /// Ends the stream for shutdown, under the suspensions' lock, which drops it from their list.
    fileprivate func end() {
        state.withLock { state in
            state.finished = true
            state.failed = true
            state.suspended = false
        }
        MHD_resume_connection(connection.pointer)
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        withLocks { registry, state in
            if !state.pending.isEmpty {
                let count = min(max, state.pending.count)
                state.pending.withUnsafeBytes {
                    buffer.update(from: $0.bindMemory(to: CChar.self).baseAddress!, count: count)
                }
                state.pending.removeFirst(count)
                state.handedOut += count
                return count
            }
            // -2 and -1 are MHD_CONTENT_READER_END_WITH_ERROR and _END_OF_STREAM (macros Swift cannot see).
            if state.finished || registry.ending { return state.failed || !state.finished ? -2 : -1 }
            state.suspended = true
            registry.streams[ObjectIdentifier(self)] = self
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }

    var bytesHandedOut: Int { state.withLock { $0.handedOut } }

    func close() {
        withLocks { registry, state in
            state.closed = true
            if state.suspended {
                state.suspended = false
                registry.streams[ObjectIdentifier(self)] = nil
            }
        }
    }
}

/// Every connection suspended while its answer is made, so shutdown can end them all first
/// (libmicrohttpd aborts the process if it is stopped with one still suspended). All suspending
/// and resuming happens under the lock of `registry`, and none once `ending` is set.
final class Suspensions: Sendable {
    struct Registry {
        fileprivate(set) var ending = false
        /// Requests waiting for a deferred answer (or a stream's first bytes).
        fileprivate var exchanges: [ObjectIdentifier: Exchange] = [:]
        /// Streams waiting for their producer's next bytes.
        fileprivate var streams: [ObjectIdentifier: ResponseStream] = [:]
    }
    fileprivate let registry = Locked(Registry())

    /// Suspends `exchange`'s connection until ``finish(_:with:stream:)``; false once ending.
    func suspend(_ exchange: Exchange, _ connection: OpaquePointer) -> Bool {
        let connection = CHandle(connection)
        return registry.withLock { registry in
            guard !registry.ending else { return false }
            exchange.connection = connection.pointer
            registry.exchanges[ObjectIdentifier(exchange)] = exchange
            MHD_suspend_connection(connection.pointer)
            return true
        }
    }

    /// Hands over the answer and resumes the connection; false if shutdown already answered it.
    @discardableResult
    func finish(_ exchange: Exchange, with response: HTTPResponse, stream: ResponseStream? = nil) -> Bool {
        registry.withLock { registry in
            guard let connection = exchange.connection,
                registry.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) != nil
            else { return false }
            exchange.ready = (response, stream)
            MHD_resume_connection(connection)
            return true
        }
    }

    /// The answer made while suspended, once the connection is back.
    func takeReady(_ exchange: Exchange) -> (response: HTTPResponse, stream: ResponseStream?)? {
        registry.withLock { _ in
            defer { exchange.ready = nil }
            return exchange.ready
        }
    }

    /// Answers every suspended request with a 503 and cuts every waiting stream short, then
    /// refuses all further suspensions. Returns how many it ended.
    func endAll() -> Int {
        registry.withLock { registry in
            registry.ending = true
            let count = registry.exchanges.count + registry.streams.count
            for exchange in registry.exchanges.values {
                exchange.ready = (HTTPServer.ending, nil)
                if let connection = exchange.connection { MHD_resume_connection(connection) }
            }
            registry.exchanges = [:]
            for stream in registry.streams.values { stream.end() }
            registry.streams = [:]
            return count
        }
    }
}
