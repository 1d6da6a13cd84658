import Foundation
internal import CMicroHTTPD

/// An HTTP/1.1 server on libmicrohttpd: a thread pool sized to the cores polls the connections
/// (keep-alive included) and calls `handler` for each complete request. Handlers run on those
/// threads, so they answer at once; slow work goes into `.stream` or `.deferred` bodies, which
/// run on threads of their own while the connection waits suspended.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// How a route takes its body: how much at most (more gets 413: by Content-Length before any
    /// is read, else as it grows, without storing it), and whether multipart parts are spooled.
    public struct BodyPolicy: Sendable {
        public var maximumBytes: Int
        /// Parse multipart/form-data as it arrives, file parts into this directory.
        public var multipartSpool: URL?
        public init(maximumBytes: Int, multipartSpool: URL? = nil) {
            self.maximumBytes = maximumBytes
            self.multipartSpool = multipartSpool
        }
    }
    public typealias BodyPolicyProvider = @Sendable (_ method: String, _ path: String) -> BodyPolicy

    public let port: Int
    let handler: Handler
    let bodyPolicy: BodyPolicyProvider
    private var daemon: OpaquePointer?
    private let listener: Int32
    private let inFlight = Counter()

    /// Binds `host:port` (port 0 picks a free one) and starts serving.
    public init(host: String, port: Int, threads: Int, bodyPolicy: @escaping BodyPolicyProvider, handler: @escaping Handler) throws {
        self.handler = handler
        self.bodyPolicy = bodyPolicy
        (listener, self.port) = try Self.listen(host: host, port: port)
        var options = [
            MHD_OptionItem(option: MHD_OPTION.THREAD_POOL_SIZE, value: max(1, threads), ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.LISTEN_SOCKET, value: Int(listener), ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: 60, ptr_value: nil),
            MHD_OptionItem(
                option: MHD_OPTION.NOTIFY_COMPLETED, value: unsafeBitCast(requestCompleted as MHD_RequestCompletedCallback, to: Int.self),
                ptr_value: Unmanaged.passUnretained(self).toOpaque()),
            MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        daemon = options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(UInt32(flags), 0, nil, nil, accessHandler, Unmanaged.passUnretained(self).toOpaque(), arguments)
            }
        }
        guard daemon != nil else {
            close(listener)
            throw HTTPServerError("libmicrohttpd could not start on \(host):\(port)")
        }
    }

    /// Stops accepting connections, lets the requests in flight finish (up to `timeout`), then stops.
    public func shutdown(timeout: TimeInterval = 30) {
        guard let daemon else { return }
        let socket = MHD_quiesce_daemon(daemon)
        if socket >= 0 { close(socket) }
        let deadline = Date().addingTimeInterval(timeout)
        while inFlight.value > 0 && Date() < deadline { usleep(10_000) }
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    deinit { shutdown(timeout: 0) }

    /// A close-on-exec listening socket, so worker processes never inherit it.
    private static func listen(host: String, port: Int) throws -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else { throw HTTPServerError("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(result) }
        let descriptor = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, Glibc.listen(descriptor, 512) == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError("cannot listen on \(host):\(port): \(message)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) } }
        let boundPort = withUnsafePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (descriptor, boundPort)
    }

    // MARK: - The request's life, called from libmicrohttpd's threads

    fileprivate func handle(_ connection: OpaquePointer, _ exchange: Exchange, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        if uploadSize.pointee > 0 {
            exchange.receive(UnsafeRawBufferPointer(start: upload, count: upload == nil ? 0 : uploadSize.pointee))
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let ready = exchange.takeReady() { return send(ready, on: connection, exchange) }
        if let failure = exchange.finishBody() { return send(failure.response, on: connection, exchange) }
        let response = handler(exchange.request)
        if case .deferred(let compute) = response.body {
            exchange.beginDeferred()
            MHD_suspend_connection(connection)
            let suspended = SuspendedConnection(connection)
            Thread.detachNewThread {
                exchange.finishDeferred(compute())
                suspended.resume()
            }
            return MHD_Result.YES
        }
        return send(response, on: connection, exchange)
    }

    /// Called before any of the body is read: a declared length over the limit is refused now.
    fileprivate func refusesUpfront(_ exchange: Exchange) -> Bool {
        guard let length = exchange.request.header("Content-Length").flatMap(Int.init) else { return false }
        return length > exchange.policy.maximumBytes
    }

    fileprivate func send(_ response: HTTPResponse, on connection: OpaquePointer, _ exchange: Exchange) -> MHD_Result {
        let reply: OpaquePointer?
        switch response.body {
        case .data(let data):
            reply = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        case .stream(let produce):
            let stream = ResponseStream(connection: connection)
            reply = MHD_create_response_from_callback(
                UInt64.max /* MHD_SIZE_UNKNOWN: chunked */, 16 * 1024, readStream, Unmanaged.passRetained(stream).toOpaque(), releaseStream)
            Thread.detachNewThread {
                do {
                    try produce(stream.write)
                    stream.finish(failed: false)
                } catch {
                    stream.finish(failed: true)
                }
            }
        case .deferred:
            return send(HTTPError(500, "deferred response nested in another").response, on: connection, exchange)
        }
        guard let reply else { return MHD_Result.NO }
        defer { MHD_destroy_response(reply) }
        for (name, value) in response.headers { MHD_add_response_header(reply, name, value) }
        return MHD_queue_response(connection, UInt32(response.status), reply)
    }

    fileprivate func started() { inFlight.add(1) }
    fileprivate func completed() { inFlight.add(-1) }
}

public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One request's state across libmicrohttpd's calls: headers, body so far, a deferred answer.
final class Exchange: @unchecked Sendable {
    /// Its body (or form) grows as libmicrohttpd hands over the upload.
    var request: HTTPRequest
    let policy: HTTPServer.BodyPolicy
    private var received = 0
    private var failure: HTTPError?
    private var multipart: MultipartParser?
    private let lock = NSLock()
    private var deferred: HTTPResponse?
    private var waiting = false

    init(request: HTTPRequest, policy: HTTPServer.BodyPolicy) {
        self.request = request
        self.policy = policy
        if let spool = policy.multipartSpool, let boundary = MultipartParser.boundary(contentType: request.header("Content-Type")) {
            multipart = MultipartParser(boundary: boundary, spool: spool)
        }
    }

    /// Spooled uploads live as long as their request.
    deinit { multipart?.spooled.forEach { try? FileManager.default.removeItem(at: $0) } }

    /// The next piece of the body. Past the limit or a parse error, the rest is read and dropped.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        received += bytes.count
        guard failure == nil else { return }
        guard received <= policy.maximumBytes else {
            failure = HTTPError(413, "request body is larger than \(policy.maximumBytes) bytes", code: "request_too_large")
            return
        }
        do {
            if let multipart { try multipart.feed(bytes) } else { request.body.append(contentsOf: bytes) }
        } catch let error as HTTPError {
            failure = error
        } catch {
            failure = HTTPError(400, "cannot read the upload: \(error)")
        }
    }

    /// The whole body has arrived: completes the form, or gives the error to answer with.
    func finishBody() -> HTTPError? {
        if failure == nil, let multipart {
            do { request.form = try multipart.finish() } catch { failure = error as? HTTPError ?? HTTPError(400, "\(error)") }
        }
        return failure
    }

    func beginDeferred() { lock.withLock { waiting = true } }
    func finishDeferred(_ response: HTTPResponse) { lock.withLock { deferred = response } }

    /// The deferred answer once it is ready (the connection was resumed for it).
    func takeReady() -> HTTPResponse? {
        lock.withLock {
            guard waiting, let deferred else { return nil }
            waiting = false
            return deferred
        }
    }
}

/// Chunks written by a producer thread, read by libmicrohttpd when the socket can take them.
/// With nothing to read the connection is suspended, and the next write resumes it.
final class ResponseStream: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: OpaquePointer
    private var pending = Data()
    private var finished = false
    private var failed = false
    private var suspended = false
    private var closed = false

    init(connection: OpaquePointer) { self.connection = connection }

    func write(_ data: Data) throws {
        let resume: Bool = try lock.withLock {
            guard !closed else { throw HTTPServerError("client went away") }
            pending.append(data)
            defer { suspended = false }
            return suspended
        }
        if resume { MHD_resume_connection(connection) }
    }

    func finish(failed: Bool) {
        let resume: Bool = lock.withLock {
            finished = true
            self.failed = failed
            defer { suspended = false }
            return suspended && !closed
        }
        if resume { MHD_resume_connection(connection) }
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        lock.withLock {
            if !pending.isEmpty {
                let count = min(max, pending.count)
                pending.withUnsafeBytes { buffer.update(from: $0.bindMemory(to: CChar.self).baseAddress!, count: count) }
                pending.removeFirst(count)
                return count
            }
            // -2 and -1 are MHD_CONTENT_READER_END_WITH_ERROR and _END_OF_STREAM (macros Swift cannot see).
            if finished { return failed ? -2 : -1 }
            suspended = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    func close() { lock.withLock { closed = true } }
}

/// A suspended connection handed to the thread that will resume it.
struct SuspendedConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
    func resume() { MHD_resume_connection(connection) }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ delta: Int) { lock.withLock { count += delta } }
    var value: Int { lock.withLock { count } }
}

// MARK: - C callbacks: they capture nothing; the server and exchange arrive as user data.

private func accessHandler(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?, _ upload: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?,
    _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if let existing = state.pointee {
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        return server.handle(connection, exchange, upload: upload, uploadSize: uploadSize)
    }
    let request = HTTPRequest(
        method: String(cString: method), path: String(cString: url),
        query: values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND, lowercased: false),
        headers: values(of: connection, kind: MHD_ValueKind.HEADER_KIND, lowercased: true))
    let exchange = Exchange(request: request, policy: server.bodyPolicy(request.method, request.path))
    state.pointee = Unmanaged.passRetained(exchange).toOpaque()
    server.started()
    if server.refusesUpfront(exchange) {
        let limit = exchange.policy.maximumBytes
        return server.send(HTTPError(413, "request body is larger than \(limit) bytes", code: "request_too_large").response, on: connection, exchange)
    }
    return MHD_Result.YES
}

/// The request is over (answered, or the connection closed): release its exchange.
private func requestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let context, let state, let existing = state.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(existing).release()
    state.pointee = nil
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed()
}

private func readStream(_ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int) -> Int {
    guard let context, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    return Unmanaged<ResponseStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

private func releaseStream(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let stream = Unmanaged<ResponseStream>.fromOpaque(context)
    stream.takeUnretainedValue().close()
    stream.release()
}

private func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Collected { var values: [String: String] = [:]; var lowercased = false }
    let collected = Collected()
    collected.lowercased = lowercased
    // The _n variant gives the lengths: a value with a NUL (`?text=a%00b`) arrives whole, to be refused.
    MHD_get_connection_values_n(connection, kind, { context, _, key, _, value, valueSize in
        guard let context, let key else { return MHD_Result.YES }
        let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
        let name = String(cString: key)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
        collected.values[collected.lowercased ? name.lowercased() : name] = text ?? ""
        return MHD_Result.YES
    }, Unmanaged.passUnretained(collected).toOpaque())
    return collected.values
}
