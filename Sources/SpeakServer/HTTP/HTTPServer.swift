internal import CMicroHTTPD
import Foundation
import SpeakKit
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a thread pool sized to the cores polls the connections
/// (keep-alive included) and calls `handler` for each complete request. Handlers run on those
/// threads, so they answer at once; slow work goes into `.stream` or `.deferred` bodies, which
/// run on a bounded pool of threads while the connection waits suspended.
///
/// A handler may answer with ``HTTPResponse/Body/upgrade(_:)`` (``WebSocket/upgrade(_:session:)``):
/// the connection then becomes a WebSocket whose session runs on a thread of its own.
///
/// Connections are accepted here, not by libmicrohttpd, so one past the limit gets a 503 instead
/// of a silent close (or, for `/health`, its answer); idle ones are closed after `idleTimeout`, and
/// a reply the client stops taking after `sendTimeout`. Every suspended connection is
/// known (``Suspensions``), so a shutdown can end them before `MHD_stop_daemon`, which aborts the
/// process if any is still suspended.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// How a route takes its body: how much at most (more gets 413: by Content-Length before any
    /// is read, else as it grows, without storing it), and whether it goes to disk as it arrives.
    public struct BodyPolicy: Sendable {
        public var maximumBytes: Int
        /// Upload bodies are spooled into this directory as they arrive, never held in memory:
        /// multipart/form-data is parsed (file parts to files, fields kept), any other body goes
        /// to one file (``HTTPRequest/bodyFile``).
        public var multipartSpool: URL?
        public init(maximumBytes: Int, multipartSpool: URL? = nil) {
            self.maximumBytes = maximumBytes
            self.multipartSpool = multipartSpool
        }
    }
    public typealias BodyPolicyProvider = @Sendable (_ method: String, _ path: String) -> BodyPolicy
    /// A request's head, before any of its body is read: an answer now (a 401, a 404) or `nil`.
    /// So nobody the handler would refuse can make the server take in (and spool) a body first.
    public typealias Screen = @Sendable (HTTPRequest) -> HTTPResponse?

    /// Bounds on what clients can hold.
    public struct Limits: Sendable {
        /// Open connections at most; one more is answered 503 and closed.
        public var connections: Int
        /// Seconds a connection may sit idle (keep-alive or a stalled request) before it is closed.
        public var idleTimeout: Int
        /// Seconds a reply may wait for the client to take more of it before it is abandoned: a
        /// player that buffered ahead pauses reading for a while (nginx's `send_timeout` is 60 s).
        public var sendTimeout: Int
        /// Threads running `.stream` and `.deferred` bodies at most; more wait their turn.
        public var responseThreads: Int
        /// Connections past `connections` still read for a `GET /health` (anything else gets the
        /// 503), so a monitor sees the server alive while clients hold every slot.
        public var healthSlots: Int
        /// WebSocket sessions open at most (each has a thread, and may keep a core busy); one more
        /// handshake gets a 503.
        public var webSockets: Int
        /// The largest WebSocket message taken; a larger one closes the connection with 1009.
        public var webSocketMessageBytes: Int
        /// Seconds a WebSocket may go without a frame from its client (clients ping meanwhile).
        public var webSocketIdleTimeout: Int

        public init(
            connections: Int = 2048, idleTimeout: Int = 15, sendTimeout: Int = 60, responseThreads: Int = 64,
            healthSlots: Int = 8, webSockets: Int = 8, webSocketMessageBytes: Int = 1 << 20,
            webSocketIdleTimeout: Int = 120
        ) {
            self.connections = max(1, connections)
            self.idleTimeout = max(1, idleTimeout)
            self.sendTimeout = max(1, sendTimeout)
            self.responseThreads = max(1, responseThreads)
            self.healthSlots = max(0, healthSlots)
            self.webSockets = max(0, webSockets)
            self.webSocketMessageBytes = max(125, webSocketMessageBytes)
            self.webSocketIdleTimeout = max(1, webSocketIdleTimeout)
        }
    }

    public let port: Int
    /// The Unix socket listened on instead of a port, removed at shutdown.
    public let socketPath: String?
    public let limits: Limits
    let handler: Handler
    /// The local socket's other protocol (``FramedSession``), if it has one.
    let framedSession: FramedSession?
    let bodyPolicy: BodyPolicyProvider
    let screen: Screen
    /// libmicrohttpd's daemon, which takes calls from any thread; `nil` once shutdown begins.
    var daemon: OpaquePointer? { running.withLock { $0 }?.pointer }
    private let running = Locked<CHandle?>(nil)
    let listener: Int32
    /// Requests begun and not yet completed.
    let inFlight = Gauge()
    /// Connections accepted and not yet closed.
    let open = Gauge()
    let suspensions = Suspensions()
    /// WebSocket sessions, slots and sockets.
    let upgrades = Upgrades()
    let responders: ThreadPool
    let acceptorDone = DispatchSemaphore(value: 0)
    /// Set once shutdown starts: every answer then closes its connection.
    let stopping = Atomic<Bool>(false)
    /// Connections past the limit being read for a `/health` (``Limits/healthSlots``).
    let healthChecks = Gauge()

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    public convenience init(
        host: String, port: Int, threads: Int, limits: Limits = Limits(),
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen = { _ in nil },
        handler: @escaping Handler
    ) throws {
        let (listener, bound) = try Self.listen(host: host, port: port)
        try self.init(
            listener: listener, port: bound, socketPath: nil, threads: threads, limits: limits,
            bodyPolicy: bodyPolicy, screen: screen, handler: handler, framedSession: nil)
    }

    /// Listens on a Unix socket at `socketPath` that only this user can open (a 0700 directory,
    /// a 0600 socket); its requests are marked ``HTTPRequest/viaLocalSocket``. A socket left by a
    /// server that died is replaced; one another server is listening on is an error. A connection
    /// that opens with a frame request goes to `framedSession` instead, when given.
    public convenience init(
        socketPath: String, threads: Int, limits: Limits = Limits(),
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen = { _ in nil },
        handler: @escaping Handler, framedSession: FramedSession? = nil
    ) throws {
        let listener = try Self.listen(socketPath: socketPath)
        try self.init(
            listener: listener, port: 0, socketPath: socketPath, threads: threads, limits: limits,
            bodyPolicy: bodyPolicy, screen: screen, handler: handler, framedSession: framedSession)
    }

    private init(
        listener: Int32, port: Int, socketPath: String?, threads: Int, limits: Limits,
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen, handler: @escaping Handler,
        framedSession: FramedSession?
    ) throws {
        Self.boundAllocator()
        self.handler = handler
        self.framedSession = framedSession
        self.bodyPolicy = bodyPolicy
        self.screen = screen
        self.limits = limits
        responders = ThreadPool(maximumThreads: limits.responseThreads, name: "speak-respond")
        (self.listener, self.port, self.socketPath) = (listener, port, socketPath)
        let context = Unmanaged.passUnretained(self).toOpaque()
        var options = [
            MHD_OptionItem(option: MHD_OPTION.THREAD_POOL_SIZE, value: max(1, threads), ptr_value: nil),
            // Above our own limit: the acceptor refuses first, with an answer.
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: limits.connections + 16, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: limits.idleTimeout, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: Self.connectionMemory, ptr_value: nil),
            MHD_OptionItem(
                option: MHD_OPTION.NOTIFY_COMPLETED,
                value: unsafeBitCast(requestCompleted as MHD_RequestCompletedCallback, to: Int.self), ptr_value: context
            ),
            MHD_OptionItem(
                option: MHD_OPTION.NOTIFY_CONNECTION,
                value: unsafeBitCast(connectionChanged as MHD_NotifyConnectionCallback, to: Int.self),
                ptr_value: context),
            MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue | MHD_ALLOW_UPGRADE.rawValue
        let daemon = options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(UInt32(flags), 0, nil, nil, accessHandler, context, arguments)
            }
        }
        guard let daemon else {
            close(listener)
            if let socketPath { unlink(socketPath) }
            throw HTTPServerError("libmicrohttpd could not start on \(socketPath ?? "port \(port)")")
        }
        running.withLock { $0 = CHandle(daemon) }
        Thread.detachNewThread { [self] in
            if let framedSession { acceptSorting(framedSession) } else { accept() }
        }
    }

    /// Stops accepting connections, closes every WebSocket session (1001) and lets the requests in
    /// flight finish for up to `timeout` seconds. Any still running then are ended: a deferred
    /// answer becomes a 503, a stream is cut short. Then the daemon stops, with no connection left
    /// suspended.
    public func shutdown(timeout: TimeInterval = 30) {
        guard let daemon = running.withLock({ $0.take() })?.pointer else { return }
        stopping.store(true, ordering: .sequentiallyConsistent)
        // Wakes the acceptor, which closes the socket.
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        acceptorDone.wait()
        upgrades.endAll()
        inFlight.wait(untilAtMost: 0, deadline: Date().addingTimeInterval(timeout))
        if suspensions.endAll() > 0 {
            // The ended requests answer and complete on libmicrohttpd's threads; a moment for that.
            inFlight.wait(untilAtMost: 0, deadline: Date().addingTimeInterval(1))
        }
        MHD_stop_daemon(daemon)
        if let socketPath { unlink(socketPath) }
    }

    deinit { shutdown(timeout: 0) }

    /// glibc's malloc gives every thread that allocates at once an arena of its own (up to 8 per
    /// core) and, after a large block is freed, raises its mmap threshold, so the next large
    /// buffers (decoded uploads, PCM) come from those arenas and are never returned: RSS would grow
    /// with every transcription and stay. Two arenas, a fixed threshold (large blocks are mmapped and
    /// go back on free), and a trim after each large request keep it flat.
    static func boundAllocator() {
        _ = mallopt(M_ARENA_MAX, 2)
        _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
        _ = mallopt(M_TRIM_THRESHOLD, 4 << 20)
    }

    /// Each connection's buffer for a request's head and the reply's headers (libmicrohttpd's
    /// default is 32 KiB). It zeroes all of it after every request, work a cached reply pays for in
    /// full, so it is no larger than a request needs: 16 KiB still takes an 8 KiB header line
    /// (nginx's default limit), and more is a 431.
    static let connectionMemory = 16 * 1024

    /// Requests with a body at least this large are followed by a `malloc_trim`.
    static let trimAfterBytes = 1 << 20

    /// The number of open connections, for tests and `/ready`.
    public var openConnections: Int { open.value }

    func started() { inFlight.add(1) }
    func connectionClosed() { open.add(-1) }
}

public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
