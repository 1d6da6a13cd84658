internal import CMicroHTTPD
import Foundation
import SpeakKit

/// Chunks written by a producer thread, read by libmicrohttpd when the socket can take them.
/// With nothing to read the connection is suspended, and the next write resumes it. Its state is
/// guarded by the lock of ``Suspensions``, which must see every suspension.
final class ResponseStream: @unchecked Sendable {  // guarded by `suspensions.lock`
    private let connection: OpaquePointer
    private let suspensions: Suspensions
    private var pending = Data()
    private var finished = false
    private var failed = false
    fileprivate var suspended = false
    private var closed = false
    /// Bytes libmicrohttpd has taken to send.
    private var handedOut = 0

    init(connection: OpaquePointer, suspensions: Suspensions) {
        self.connection = connection
        self.suspensions = suspensions
    }

    /// The first bytes, before the response is queued.
    func prime(_ data: Data) { suspensions.lock.withLock { pending.append(data) } }

    func write(_ data: Data) throws {
        try suspensions.lock.withLock {
            guard !closed, !suspensions.ending else { throw HTTPServerError("client went away") }
            pending.append(data)
            if suspended { resume() }
        }
    }

    func finish(failed: Bool) {
        suspensions.lock.withLock {
            finished = true
            self.failed = self.failed || failed
            if suspended && !closed { resume() }
        }
    }

    /// Under the lock.
    private func resume() {
        suspended = false
        suspensions.streams[ObjectIdentifier(self)] = nil
        MHD_resume_connection(connection)
    }

    /// Ends the stream for shutdown. Under the lock.
    fileprivate func end() {
        finished = true
        failed = true
        resume()
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        suspensions.lock.withLock {
            if !pending.isEmpty {
                let count = min(max, pending.count)
                pending.withUnsafeBytes {
                    buffer.update(from: $0.bindMemory(to: CChar.self).baseAddress!, count: count)
                }
                pending.removeFirst(count)
                handedOut += count
                return count
            }
            // -2 and -1 are MHD_CONTENT_READER_END_WITH_ERROR and _END_OF_STREAM (macros Swift cannot see).
            if finished || suspensions.ending { return failed || !finished ? -2 : -1 }
            suspended = true
            suspensions.streams[ObjectIdentifier(self)] = self
            MHD_suspend_connection(connection)
            return 0
        }
    }

    var bytesHandedOut: Int { suspensions.lock.withLock { handedOut } }

    func close() {
        suspensions.lock.withLock {
            closed = true
            if suspended {
                suspended = false
                suspensions.streams[ObjectIdentifier(self)] = nil
            }
        }
    }
}

/// Every connection suspended while its answer is made, so shutdown can end them all first
/// (libmicrohttpd aborts the process if it is stopped with one still suspended). All suspending
/// and resuming happens under `lock`, and none once `ending` is set.
final class Suspensions: @unchecked Sendable {  // guarded by `lock`
    let lock = ThreadLock()
    fileprivate(set) var ending = false
    /// Requests waiting for a deferred answer (or a stream's first bytes).
    private var exchanges: [ObjectIdentifier: Exchange] = [:]
    /// Streams waiting for their producer's next bytes.
    fileprivate var streams: [ObjectIdentifier: ResponseStream] = [:]

    /// Suspends `exchange`'s connection until ``finish(_:with:stream:)``; false once ending.
    func suspend(_ exchange: Exchange, _ connection: OpaquePointer) -> Bool {
        lock.withLock {
            guard !ending else { return false }
            exchange.connection = connection
            exchanges[ObjectIdentifier(exchange)] = exchange
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// Hands over the answer and resumes the connection; false if shutdown already answered it.
    @discardableResult
    func finish(_ exchange: Exchange, with response: HTTPResponse, stream: ResponseStream? = nil) -> Bool {
        lock.withLock {
            guard let connection = exchange.connection, exchanges.removeValue(forKey: ObjectIdentifier(exchange)) != nil
            else { return false }
            exchange.ready = (response, stream)
            MHD_resume_connection(connection)
            return true
        }
    }

    /// The answer made while suspended, once the connection is back.
    func takeReady(_ exchange: Exchange) -> (response: HTTPResponse, stream: ResponseStream?)? {
        lock.withLock {
            defer { exchange.ready = nil }
            return exchange.ready
        }
    }

    /// Answers every suspended request with a 503 and cuts every waiting stream short, then
    /// refuses all further suspensions. Returns how many it ended.
    func endAll() -> Int {
        lock.withLock {
            ending = true
            let count = exchanges.count + streams.count
            for exchange in exchanges.values {
                exchange.ready = (HTTPServer.ending, nil)
                if let connection = exchange.connection { MHD_resume_connection(connection) }
            }
            exchanges = [:]
            for stream in streams.values { stream.end() }
            streams = [:]
            return count
        }
    }
}
