import Foundation
import Glibc
import SpeakKit

/// An HTTP/1.1 client over a real socket, one connection per call (`Connection: close`) unless a
/// test keeps one for several (``sendOnOneConnection(_:)``), that
/// reports the reply as it came: status, headers in their order, the body unchunked, whether it
/// was chunked (``ServiceAnswer/streamed``) and whether it ended before its end (``ServiceAnswer/cut``:
/// a chunked reply without its last chunk, or fewer bytes than its Content-Length). A cut reply
/// is never taken for a whole one. A connection that fails before any reply is status 0, the
/// failure as its body.
public struct WireClient: ServiceClient, Sendable {
    public enum Endpoint: Sendable {
        case tcp(host: String, port: Int)
        /// A Unix socket, as the local hand-off and `speak -v` reach a server.
        case unix(path: String)
    }

    public let endpoint: Endpoint
    public let authorization: String?

    public init(_ endpoint: Endpoint, authorization: String? = nil) {
        (self.endpoint, self.authorization) = (endpoint, authorization)
    }

    /// `http://127.0.0.1:PORT`'s client.
    public init(port: Int, authorization: String? = nil) {
        self.init(.tcp(host: "127.0.0.1", port: port), authorization: authorization)
    }

    /// `http://127.0.0.1:PORT`'s client, with `token` as its bearer token.
    public init(port: Int, token: String) {
        self.init(port: port, authorization: "Bearer \(token)")
    }

    public func send(_ request: ServiceRequest) -> ServiceAnswer { send(request) {} }

    /// As ``send(_:)``; `whenBodyBegins` runs once the first bytes after the reply's head have
    /// arrived (at the end when none come), before more are read: what it sees held while the
    /// reply was still coming.
    public func send(_ request: ServiceRequest, whenBodyBegins: () -> Void) -> ServiceAnswer {
        let descriptor: Int32
        switch connect(from: request.address) {
        case .success(let connected): descriptor = connected
        case .failure(let failure): return Self.failed("cannot connect: \(failure)")
        }
        defer { close(descriptor) }
        Self.limitWaiting(descriptor)
        // A server may answer (a 401, a 413) and close before the whole body is sent: what it
        // answered is still read.
        _ = Self.write(head(request) + (request.body ?? Data()), to: descriptor)
        var received = Data()
        Self.read(descriptor, into: &received) { received in
            received.range(of: Data("\r\n\r\n".utf8)).map { $0.upperBound < received.endIndex } ?? false
        }
        whenBodyBegins()
        Self.read(descriptor, into: &received)
        return Self.parse(received, method: request.method)
    }

    /// `requests` one after another on one connection, kept alive between them: each is written
    /// once the answer before it has been read whole, and the last asks the server to close. A
    /// server that closes the connection after an answer leaves the requests after it with status 0.
    public func sendOnOneConnection(_ requests: [ServiceRequest]) -> [ServiceAnswer] {
        let descriptor: Int32
        switch connect(from: requests.first?.address) {
        case .success(let connected): descriptor = connected
        case .failure(let failure): return requests.map { _ in Self.failed("cannot connect: \(failure)") }
        }
        defer { close(descriptor) }
        Self.limitWaiting(descriptor)
        return requests.enumerated().map { index, request in
            _ = Self.write(
                head(request, closing: index == requests.count - 1) + (request.body ?? Data()), to: descriptor)
            var received = Data()
            // Whole once its head and as many bytes as it announced (or its last chunk) are in.
            Self.read(descriptor, into: &received) { !Self.parse($0, method: request.method).cut }
            return Self.parse(received, method: request.method)
        }
    }

    /// Nothing here waits on a clock; this only keeps a server that never answers from hanging
    /// the test run.
    private static func limitWaiting(_ descriptor: Int32) {
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Appends what arrives on `descriptor` to `received` until the peer closes or `isEnough` holds.
    private static func read(
        _ descriptor: Int32, into received: inout Data, until isEnough: (Data) -> Bool = { _ in false }
    ) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !isEnough(received) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            received.append(contentsOf: buffer[..<count])
        }
    }

    /// The request line and headers, with Host, `Connection: close` when `closing`, and
    /// Content-Length when there is a body not sent chunked (the test chunked it itself).
    func head(_ request: ServiceRequest, closing: Bool = true) -> Data {
        var target = request.path
        if !request.query.isEmpty {
            target +=
                "?"
                + request.query.sorted { $0.key < $1.key }.map { "\(Self.encode($0))=\(Self.encode($1))" }
                .joined(separator: "&")
        }
        var lines = ["\(request.method) \(target) HTTP/1.1"]
        switch endpoint {
        case .tcp(let host, let port): lines.append("host: \(host):\(port)")
        case .unix: lines.append("host: localhost")
        }
        if closing { lines.append("connection: close") }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) where name != "content-length" {
            lines.append("\(name): \(value)")
        }
        if let body = request.body, request.headers["transfer-encoding"] == nil {
            lines.append("content-length: \(body.count)")
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func encode(_ text: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        return text.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }
            .joined()
    }

    private func connect(from address: String?) -> Result<Int32, WireError> {
        switch endpoint {
        case .unix(let path):
            let descriptor = Socket.connect(unixPath: path)
            guard descriptor >= 0 else { return .failure(Self.error("connect \(path)")) }
            return .success(descriptor)
        case .tcp(let host, let port):
            return Self.connect(host: host, port: port, from: address)
        }
    }

    /// A TCP connection to `host:port` (an IPv4 address), from `source` when given.
    public static func connect(host: String, port: Int, from source: String?) -> Result<Int32, WireError> {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(error("socket")) }
        func address(_ text: String, _ port: Int) -> sockaddr_in? {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            return inet_pton(AF_INET, text, &address.sin_addr) == 1 ? address : nil
        }
        func call(_ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            withUnsafePointer(to: address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if let source {
            guard let local = address(source, 0), call(local, { bind(descriptor, $0, $1) }) == 0 else {
                let failure = error("bind \(source)")
                close(descriptor)
                return .failure(failure)
            }
        }
        guard let remote = address(host, port), call(remote, { Glibc.connect(descriptor, $0, $1) }) == 0 else {
            let failure = error("connect \(host):\(port)")
            close(descriptor)
            return .failure(failure)
        }
        return .success(descriptor)
    }

    /// A connection that could not be made: what was tried, and errno's message.
    public struct WireError: Error, CustomStringConvertible {
        public let description: String
    }

    private static func error(_ what: String) -> WireError {
        WireError(description: "\(what): \(String(cString: strerror(errno)))")
    }

    /// Writes all of `data`, or as much as the peer takes before it closes (no SIGPIPE).
    private static func write(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(
                    descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    static func failed(_ why: String) -> ServiceAnswer {
        var answer = ServiceAnswer(status: 0, headers: [], body: Data(why.utf8))
        answer.cut = true
        return answer
    }

    /// A whole reply as read until the server closed the connection.
    static func parse(_ received: Data, method: String) -> ServiceAnswer {
        let bytes = [UInt8](received)
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return failed("no whole reply head in \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            return failed("not an HTTP reply: \(lines[0])")
        }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var answer = ServiceAnswer(status: status, headers: headers, body: Data())
        let rest = Array(bytes[(end + 4)...])
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) { return answer }
        if answer.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            answer.streamed = true
            (answer.body, answer.cut) = unchunk(rest)
        } else if let length = answer.header("Content-Length").flatMap({ Int($0) }) {
            answer.body = Data(rest.prefix(length))
            answer.cut = rest.count < length
        } else {
            answer.body = Data(rest)
        }
        return answer
    }

    /// A chunked body's data, and whether it ended before its last (zero-length) chunk.
    static func unchunk(_ bytes: [UInt8]) -> (Data, cut: Bool) {
        var data = Data()
        var offset = 0
        while true {
            guard
                let lineEnd = (offset..<max(offset, bytes.count - 1)).first(where: {
                    bytes[$0] == 13 && bytes[$0 + 1] == 10
                })
            else { return (data, true) }
            let sizeText = String(decoding: bytes[offset..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return (data, true) }
            if size == 0 { return (data, false) }
            let start = lineEnd + 2
            guard start + size + 2 <= bytes.count else {
                data.append(contentsOf: bytes[start..<min(bytes.count, start + size)])
                return (data, true)
            }
            data.append(contentsOf: bytes[start..<start + size])
            offset = start + size + 2
        }
    }
}

/// A call made on a thread of its own, so a test acts while it is in flight (stops the server,
/// kills a worker) or makes many at once; ``answer()`` waits for it.
public final class BackgroundCall: Sendable {
    private let result = LockedCondition<ServiceAnswer?>(nil)

    public init(_ call: @escaping @Sendable () -> ServiceAnswer) {
        Thread.detachNewThread { [result] in
            let answer = call()
            result.change { $0 = answer }
        }
    }

    public func answer() -> ServiceAnswer { result.wait(until: { $0 != nil }, then: { $0! }) }
}
