internal import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a thread pool sized to the cores polls the connections
/// (keep-alive included) and calls `handler` for each complete request. Handlers run on those
/// threads, so they answer at once; slow work goes into `.stream` or `.deferred` bodies, which
/// run on a bounded pool of threads while the connection waits suspended.
///
/// Connections are accepted here, not by libmicrohttpd, so one past the limit gets a 503 instead
/// of a silent close; idle ones are closed after `idleTimeout`. Every suspended connection is
/// known (``Suspensions``), so a shutdown can end them before `MHD_stop_daemon`, which aborts the
/// process if any is still suspended.
public final class HTTPServer: @unchecked Sendable {  // the daemon pointer is libmicrohttpd's
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
        /// Threads running `.stream` and `.deferred` bodies at most; more wait their turn.
        public var responseThreads: Int

        public init(connections: Int = 2048, idleTimeout: Int = 15, responseThreads: Int = 64) {
            self.connections = max(1, connections)
            self.idleTimeout = max(1, idleTimeout)
            self.responseThreads = max(1, responseThreads)
        }
    }

    public let port: Int
    /// The Unix socket listened on instead of a port, removed at shutdown.
    public let socketPath: String?
    public let limits: Limits
    let handler: Handler
    let bodyPolicy: BodyPolicyProvider
    let screen: Screen
    private var daemon: OpaquePointer?
    private let listener: Int32
    /// Requests begun and not yet completed.
    private let inFlight = Gauge()
    /// Connections accepted and not yet closed.
    private let open = Gauge()
    let suspensions = Suspensions()
    let responders: ThreadPool
    private let acceptorDone = DispatchSemaphore(value: 0)
    /// Set once shutdown starts: every answer then closes its connection.
    let stopping = Atomic<Bool>(false)

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    public convenience init(
        host: String, port: Int, threads: Int, limits: Limits = Limits(),
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen = { _ in nil },
        handler: @escaping Handler
    ) throws {
        let (listener, bound) = try Self.listen(host: host, port: port)
        try self.init(
            listener: listener, port: bound, socketPath: nil, threads: threads, limits: limits,
            bodyPolicy: bodyPolicy, screen: screen, handler: handler)
    }

    /// Listens on a Unix socket at `socketPath` that only this user can open (a 0700 directory,
    /// a 0600 socket); its requests are marked ``HTTPRequest/viaLocalSocket``. A socket left by a
    /// server that died is replaced; one another server is listening on is an error.
    public convenience init(
        socketPath: String, threads: Int, limits: Limits = Limits(),
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen = { _ in nil },
        handler: @escaping Handler
    ) throws {
        let listener = try Self.listen(socketPath: socketPath)
        try self.init(
            listener: listener, port: 0, socketPath: socketPath, threads: threads, limits: limits,
            bodyPolicy: bodyPolicy, screen: screen, handler: handler)
    }

    private init(
        listener: Int32, port: Int, socketPath: String?, threads: Int, limits: Limits,
        bodyPolicy: @escaping BodyPolicyProvider, screen: @escaping Screen, handler: @escaping Handler
    ) throws {
        Self.boundAllocator()
        self.handler = handler
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
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
        daemon = options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(UInt32(flags), 0, nil, nil, accessHandler, context, arguments)
            }
        }
        guard daemon != nil else {
            close(listener)
            if let socketPath { unlink(socketPath) }
            throw HTTPServerError("libmicrohttpd could not start on \(socketPath ?? "port \(port)")")
        }
        Thread.detachNewThread { [self] in accept() }
    }

    /// Stops accepting connections and lets the requests in flight finish for up to `timeout`
    /// seconds. Any still running then are ended: a deferred answer becomes a 503, a stream is cut
    /// short. Then the daemon stops, with no connection left suspended.
    public func shutdown(timeout: TimeInterval = 30) {
        guard let daemon else { return }
        self.daemon = nil
        stopping.store(true, ordering: .sequentiallyConsistent)
        // Wakes the acceptor, which closes the socket.
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        acceptorDone.wait()
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
    /// buffers (decoded uploads, PCM) come from those arenas and are never returned: RSS grew with
    /// every transcription and stayed. Two arenas, a fixed threshold (large blocks are mmapped and
    /// go back on free), and a trim after each large request keep it flat.
    static func boundAllocator() {
        _ = mallopt(M_ARENA_MAX, 2)
        _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
        _ = mallopt(M_TRIM_THRESHOLD, 4 << 20)
    }

    /// Each connection's buffer for a request's head and the reply's headers (libmicrohttpd's
    /// default is 32 KiB). It zeroes all of it after every request, which was 6 % of a cached reply's
    /// CPU; 16 KiB still takes an 8 KiB header line (nginx's default limit), and more is a 431.
    static let connectionMemory = 16 * 1024

    /// Requests with a body at least this large are followed by a `malloc_trim`.
    static let trimAfterBytes = 1 << 20

    /// The number of open connections, for tests and `/ready`.
    public var openConnections: Int { open.value }

    /// Accepts connections until shutdown; past the limit, answers 503 and closes.
    private func accept() {
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

    /// A close-on-exec listening socket, so worker processes never inherit it.
    private static func listen(host: String, port: Int) throws -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else {
            throw HTTPServerError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.pointee.ai_family, type, 0)
        guard descriptor >= 0 else { throw HTTPServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, 1024) == 0
        else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError("cannot listen on \(host):\(port): \(message)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        let boundPort = withUnsafePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (descriptor, boundPort)
    }

    private static func listen(socketPath path: String) throws -> Int32 {
        let failure = { (what: String) in
            HTTPServerError("cannot listen on \(path): \(what): \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw HTTPServerError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("mkdir") }
        var status = stat()
        guard stat(directory, &status) == 0 else { throw failure("stat") }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw HTTPServerError("\(directory) must be this user's own, mode 0700, to hold the local socket")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let bind = {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
            }
        }
        if bind() != 0 && errno == EADDRINUSE {
            // Someone answering there is another server; nobody answering, a dead one's leftover.
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let answered = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, length) }
            }
            close(probe)
            var existing = stat()
            guard answered != 0, lstat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFSOCK else {
                close(descriptor)
                throw HTTPServerError("\(path) is in use by another server, or is not a socket")
            }
            unlink(path)
            _ = bind()
        }
        // Owner only, whatever the umask: the socket's requests need no token.
        guard chmod(path, 0o600) == 0, Glibc.listen(descriptor, 128) == 0 else {
            let error = failure("bind")
            close(descriptor)
            throw error
        }
        return descriptor
    }

    // MARK: - The request's life, called from libmicrohttpd's threads

    fileprivate func handle(
        _ connection: OpaquePointer, _ exchange: Exchange, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if uploadSize.pointee > 0 {
            exchange.receive(UnsafeRawBufferPointer(start: upload, count: upload == nil ? 0 : uploadSize.pointee))
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let ready = suspensions.takeReady(exchange) {
            return send(ready.response, on: connection, stream: ready.stream)
        }
        if let failure = exchange.finishBody() { return send(failure.response, on: connection) }
        let response = handler(exchange.request)
        switch response.body {
        case .data: return send(response, on: connection)
        case .deferred(let compute):
            guard suspensions.suspend(exchange, connection) else { return send(Self.ending, on: connection) }
            responders.run { [suspensions] in
                suspensions.finish(exchange, with: compute())
                if exchange.receivedBytes >= Self.trimAfterBytes { _ = malloc_trim(0) }
            }
            return MHD_Result.YES
        case .stream(let produce):
            guard suspensions.suspend(exchange, connection) else { return send(Self.ending, on: connection) }
            let stream = ResponseStream(connection: connection, suspensions: suspensions)
            responders.run { [suspensions] in
                Self.produce(produce, into: stream, answering: exchange, with: response, suspensions)
            }
            return MHD_Result.YES
        }
    }

    /// Runs a stream's producer. Its first bytes decide the answer: until then nothing is sent,
    /// so a reply that fails before it starts is an error status, never a 200 with no body.
    private static func produce(
        _ produce: @Sendable (_ write: (Data) throws -> Void) throws -> Void, into stream: ResponseStream,
        answering exchange: Exchange, with response: HTTPResponse, _ suspensions: Suspensions
    ) {
        var started = false
        do {
            try produce { data in
                guard !data.isEmpty else { return }
                if started { return try stream.write(data) }
                stream.prime(data)
                guard suspensions.finish(exchange, with: response, stream: stream) else {
                    throw HTTPServerError("the server is shutting down")
                }
                started = true
            }
            if started {
                stream.finish(failed: false)
            } else {
                suspensions.finish(exchange, with: response, stream: stream)
                stream.finish(failed: false)
            }
        } catch {
            if started { return stream.finish(failed: true) }
            let failure =
                (error as? HTTPError)
                ?? HTTPError(503, "the reply could not be made: \(error)", code: "engine_unavailable")
            suspensions.finish(exchange, with: failure.response)
        }
    }

    /// What a request gets once shutdown has ended the rest.
    static let ending = HTTPError(503, "the server is shutting down", code: "shutting_down").response

    /// Called before any of the body is read: framing RFC 9112 forbids, what `screen` refuses, or a
    /// declared length over the limit, is answered now.
    fileprivate func refusesUpfront(_ exchange: Exchange) -> HTTPResponse? {
        let lengths = exchange.request.header("Content-Length").map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let error = refusesFraming(exchange.request, lengths: lengths) { return error.response }
        // Repaired, `?text=%ff` would be spoken as silence, with a 200.
        if !exchange.request.queryIsUTF8 {
            return HTTPError(400, "the query is not UTF-8: percent-encode the text's UTF-8 bytes").response
        }
        if let answer = screen(exchange.request) { return answer }
        // Repeated, the lengths agree (framing checked that): the first is the length.
        if let length = lengths?.first.flatMap(Int.init), length > exchange.policy.maximumBytes {
            let limit = exchange.policy.maximumBytes
            return HTTPError(413, "request body is larger than \(limit) bytes", code: "request_too_large").response
        }
        return nil
    }

    /// Framing RFC 9112 forbids; `lengths` are the Content-Length header's values.
    private func refusesFraming(_ request: HTTPRequest, lengths: [String]?) -> HTTPError? {
        if let lengths, Set(lengths).count > 1 {
            return HTTPError(400, "conflicting Content-Length headers", code: "invalid_framing")
        }
        if let codings = request.header("Transfer-Encoding") {
            let list = codings.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if lengths != nil {
                return HTTPError(
                    400, "a request may not carry both Transfer-Encoding and Content-Length", code: "invalid_framing")
            }
            guard list.last == "chunked" else {
                return HTTPError(400, "Transfer-Encoding must end with chunked", code: "invalid_framing")
            }
            if list.count > 1 {
                let others = list.dropLast().joined(separator: ", ")
                return HTTPError(
                    501, "transfer coding '\(others)' is not supported; send chunked only", code: "not_implemented")
            }
        }
        return nil
    }

    fileprivate func send(_ response: HTTPResponse, on connection: OpaquePointer, stream: ResponseStream? = nil)
        -> MHD_Result
    {
        let reply: OpaquePointer?
        if let stream {
            // UInt64.max is MHD_SIZE_UNKNOWN: chunked.
            reply = MHD_create_response_from_callback(
                UInt64.max, 16 * 1024, readStream,
                Unmanaged.passRetained(stream).toOpaque(), releaseStream)
        } else if case .data(let data) = response.body {
            reply = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                    MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        } else {
            return send(HTTPError(500, "a deferred response nested in another").response, on: connection)
        }
        guard let reply else { return MHD_Result.NO }
        defer { MHD_destroy_response(reply) }
        for (name, value) in response.headers { MHD_add_response_header(reply, name, value) }
        if stopping.load(ordering: .relaxed) { MHD_add_response_header(reply, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(response.status), reply)
    }

    fileprivate func started() { inFlight.add(1) }
    fileprivate func completed() { inFlight.add(-1) }
    fileprivate func connectionClosed() { open.add(-1) }
}

public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One request's state across libmicrohttpd's calls: headers, body so far, a deferred answer.
final class Exchange: @unchecked Sendable {  // touched by one libmicrohttpd thread at a time
    /// Its body (or form) grows as libmicrohttpd hands over the upload.
    var request: HTTPRequest
    let policy: HTTPServer.BodyPolicy
    private var received = 0
    /// The body's size so far.
    var receivedBytes: Int { received }
    private var failure: HTTPError?
    private var multipart: MultipartParser?
    private var bodyFile: Int32 = -1
    private var spooled: [URL] = []
    /// Guarded by ``Suspensions``'s lock: the answer computed while the connection was suspended.
    var ready: (response: HTTPResponse, stream: ResponseStream?)?
    var connection: OpaquePointer?

    init(request: HTTPRequest, policy: HTTPServer.BodyPolicy) {
        self.request = request
        self.policy = policy
        if let spool = policy.multipartSpool,
            let boundary = MultipartParser.boundary(contentType: request.header("Content-Type"))
        {
            multipart = MultipartParser(boundary: boundary, spool: spool)
        }
    }

    /// Spooled uploads live as long as their request.
    deinit {
        if bodyFile >= 0 { close(bodyFile) }
        for file in spooled + (multipart?.spooled ?? []) { unlink(file.path) }
    }

    /// The next piece of the body. Past the limit or a parse error, the rest is read and dropped.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        received += bytes.count
        guard failure == nil else { return }
        guard received <= policy.maximumBytes else {
            failure = HTTPError(
                413, "request body is larger than \(policy.maximumBytes) bytes", code: "request_too_large")
            return
        }
        do {
            if let multipart {
                try multipart.feed(bytes)
            } else if let spool = policy.multipartSpool {
                try spoolBody(bytes, into: spool)
            } else {
                request.body.append(contentsOf: bytes)
            }
        } catch let error as HTTPError {
            failure = error
        } catch {
            failure = HTTPError(400, "cannot read the upload: \(error)")
        }
    }

    /// A body that is not multipart, on a route that spools: straight to one file.
    private func spoolBody(_ bytes: UnsafeRawBufferPointer, into spool: URL) throws {
        if bodyFile < 0 {
            let url = spool.appendingPathComponent("body-\(UUID().uuidString)")
            bodyFile = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard bodyFile >= 0 else {
                throw HTTPError(500, "cannot spool the upload: \(String(cString: strerror(errno)))")
            }
            spooled.append(url)
            request.bodyFile = url
        }
        var done = 0
        while done < bytes.count {
            let written = write(bodyFile, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw HTTPError(500, "cannot spool the upload: \(String(cString: strerror(errno)))")
            }
            done += written
        }
    }

    /// The whole body has arrived: completes the form, or gives the error to answer with.
    func finishBody() -> HTTPError? {
        if failure == nil, let multipart {
            do { request.form = try multipart.finish() } catch {
                failure = error as? HTTPError ?? HTTPError(400, "\(error)")
            }
        }
        if bodyFile >= 0 {
            close(bodyFile)
            bodyFile = -1
        }
        return failure
    }
}

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
    let lock = NSLock()
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

/// A fixed number of threads at most, started as needed, running jobs in order of submission.
/// Bounded because every job belongs to a connection, and connections are bounded.
final class ThreadPool: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [(@Sendable () -> Void)?] = []
    private var next = 0
    private var threads = 0
    private var idle = 0
    let maximumThreads: Int
    /// The threads' name (in `top -H`, `/proc/…/task/…/comm`): else they inherit the name of
    /// the libmicrohttpd thread that started them.
    let name: String

    init(maximumThreads: Int, name: String) {
        self.maximumThreads = maximumThreads
        self.name = name
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let start = jobs.count - next > idle && threads < maximumThreads
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start { Thread.detachNewThread { [self] in work() } }
    }

    private func work() {
        // Not `Thread.current.name`: Foundation names the OS thread only once the thread that
        // started this one has recorded its handle, and a new thread that runs first kept the name
        // of the libmicrohttpd thread that started it (3 of 27, forty requests at once). Glibc's
        // pthread_setname_np is not visible to Swift; this file is what it writes.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            _ = name.withCString { write(comm, $0, strlen($0)) }
            close(comm)
        }
        while true {
            condition.lock()
            while next == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            // Taken out, so what it holds (a request's spooled uploads) goes when it ends.
            let job = jobs[next]!
            jobs[next] = nil
            next += 1
            if next > 256 && next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job()
        }
    }
}

/// A count many threads change and one may wait on.
final class Gauge: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var count = 0

    /// Adds `delta`; the new count.
    @discardableResult
    func add(_ delta: Int) -> Int {
        condition.withLock {
            count += delta
            condition.broadcast()
            return count
        }
    }

    var value: Int { condition.withLock { count } }

    /// Waits until the count is at most `limit`, or `deadline` passes.
    func wait(untilAtMost limit: Int, deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while count > limit && condition.wait(until: deadline) {}
    }
}

// MARK: - C callbacks: they capture nothing; the server and exchange arrive as user data.

private func accessHandler(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ upload: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if let existing = state.pointee {
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        return server.handle(connection, exchange, upload: upload, uploadSize: uploadSize)
    }
    let query = values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND, lowercased: false)
    var request = HTTPRequest(
        method: String(cString: method), path: originPath(String(cString: url)),
        query: query.0, headers: values(of: connection, kind: MHD_ValueKind.HEADER_KIND, lowercased: true).0)
    request.viaLocalSocket = server.socketPath != nil
    if !request.viaLocalSocket {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        speak_client_address(connection, &text, socklen_t(text.count))
        let length = text.firstIndex(of: 0) ?? text.count
        request.address =
            length == 0 ? nil : String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    request.queryIsUTF8 = query.allUTF8
    let exchange = Exchange(request: request, policy: server.bodyPolicy(request.method, request.path))
    state.pointee = Unmanaged.passRetained(exchange).toOpaque()
    server.started()
    if let refusal = server.refusesUpfront(exchange) { return server.send(refusal, on: connection) }
    return MHD_Result.YES
}

/// The path of an absolute-form target (`http://host/health` → `/health`), else the target itself.
func originPath(_ target: String) -> String {
    guard target.first != "/", let scheme = target.range(of: "://"),
        ["http", "https"].contains(target[..<scheme.lowerBound].lowercased())
    else { return target }
    let rest = target[scheme.upperBound...]
    guard let slash = rest.firstIndex(of: "/") else { return "/" }
    return String(rest[slash...])
}

/// The request is over (answered, or the connection closed): release its exchange.
private func requestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let context, let state, let existing = state.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(existing).release()
    state.pointee = nil
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed()
}

private func connectionChanged(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ change: MHD_ConnectionNotificationCode
) {
    // 1 is MHD_CONNECTION_NOTIFY_CLOSED.
    guard let context, change.rawValue == 1 else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connectionClosed()
}

private func readStream(
    _ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let context, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    return Unmanaged<ResponseStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

private func releaseStream(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let stream = Unmanaged<ResponseStream>.fromOpaque(context)
    stream.takeUnretainedValue().close()
    stream.release()
}

/// A connection's headers or query arguments. A header sent more than once is joined with ", ",
/// as RFC 9110 combines repeated fields, so conflicting framing headers can be seen.
/// The connection's values of `kind`, and whether all were UTF-8 (else they are repaired, U+FFFD
/// for each bad byte).
private func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> (
    [String: String], allUTF8: Bool
) {
    struct Collected {
        // Room for a usual request's headers: growing a dictionary rehashes it.
        var values = [String: String](minimumCapacity: 12)
        var lowercased: Bool
        var joins: Bool
        var allUTF8 = true
    }
    var collected = Collected(lowercased: lowercased, joins: kind == MHD_ValueKind.HEADER_KIND)
    // The _n variant gives the lengths: a value with a NUL (`?text=a%00b`) arrives whole, to be refused.
    withUnsafeMutablePointer(to: &collected) { context in
        _ = MHD_get_connection_values_n(
            connection, kind,
            { context, _, key, keySize, value, valueSize in
                guard let context, let key else { return MHD_Result.YES }
                let collected = context.assumingMemoryBound(to: Collected.self)
                let name =
                    collected.pointee.lowercased
                    ? asciiLowercased(
                        UnsafeBufferPointer(
                            start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), count: keySize))
                    : String(cString: key)
                let bytes = value.map { UnsafeRawBufferPointer(start: $0, count: valueSize) }
                let valid = bytes.flatMap { String(validating: $0, as: UTF8.self) }
                if bytes != nil, valid == nil { collected.pointee.allUTF8 = false }
                let text = valid ?? bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
                if let earlier = collected.pointee.values.updateValue(text, forKey: name), collected.pointee.joins {
                    collected.pointee.values[name] = earlier + ", " + text
                }
                return MHD_Result.YES
            }, context)
    }
    return (collected.values, collected.allUTF8)
}
