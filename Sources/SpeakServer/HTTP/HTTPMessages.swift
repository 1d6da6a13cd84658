import Foundation
import SpeakKit

/// An HTTP request as the routes see it: parsed, with its whole (size-capped) body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    /// Query arguments, percent-decoded.
    public var query: [String: String]
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data
    /// The parsed upload, on routes that take multipart/form-data.
    public var form: MultipartForm?
    /// Where a body that is not multipart was spooled, on routes that spool uploads (``body`` then
    /// stays empty). Removed when the request ends.
    public var bodyFile: URL?
    /// Who the request was authenticated as, once a route's service has checked its token.
    public var client: String?
    /// Arrived on the local socket (``HTTPServer/init(socketPath:threads:limits:bodyPolicy:handler:)``),
    /// which only its owner can open: the local user, who needs no token.
    public var viaLocalSocket = false
    /// The client's IP address, as text; `nil` on the local socket. Behind a proxy, the proxy's.
    public var address: String?
    /// Whether every query value arrived as UTF-8; those that did not were repaired.
    var queryIsUTF8 = true

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[asciiLowercased(name)] }
}

/// `text` with A–Z lowercased and every other byte as it is: header names are ASCII tokens, and
/// this runs for every header of every request, where `lowercased()`'s Unicode tables cost.
func asciiLowercased(_ text: String) -> String {
    var text = text
    return text.withUTF8 { asciiLowercased($0) }
}

func asciiLowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    guard bytes.contains(where: { $0 &- 0x41 < 26 }) else { return String(decoding: bytes, as: UTF8.self) }
    return String(unsafeUninitializedCapacity: bytes.count) { buffer in
        for (index, byte) in bytes.enumerated() { buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte }
        return bytes.count
    }
}

/// What a route answers.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case data(Data)
        /// Sent with chunked transfer encoding as `produce` writes it, from the server's pool of
        /// response threads, so a slow producer never holds up the connection threads. Nothing is
        /// sent before its first bytes: if it throws before writing any, the answer is the error
        /// (an ``HTTPError`` as itself, anything else as 503), not a 200 with no body.
        case stream(@Sendable (_ write: (Data) throws -> Void) throws -> Void)
        /// The whole response is computed on the server's pool of response threads (an upstream
        /// fetch, playback), while the connection waits suspended.
        case deferred(@Sendable () -> HTTPResponse)
        /// A 101 (``WebSocket/upgrade(_:session:)`` makes it): the connection is then a
        /// WebSocket, run by the session on a thread of its own.
        case upgrade(WebSocket.Session)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body
    /// An answer to a failure another attempt may not meet (``TransientError``): a `.deferred`
    /// body that comes back with this set is computed once more, as nothing of it was sent.
    public var worthRetrying = false

    public init(status: Int = 200, headers: [(String, String)] = [], body: Body = .data(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: JSONValue, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: .data(value.data))
    }

    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .data(Data(text.utf8)))
    }
}

/// An error any route can throw; it becomes a response in OpenAI's error shape:
/// `{"error": {"message", "type", "param", "code"}}`.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var message: String
    public var type: String
    public var param: String?
    public var code: String?
    public var headers: [(String, String)]

    public init(
        _ status: Int, _ message: String, type: String? = nil, param: String? = nil, code: String? = nil,
        headers: [(String, String)] = []
    ) {
        self.status = status
        self.message = message
        self.type =
            type
            ?? (status == 401
                ? "authentication_error"
                : status == 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error")
        self.param = param
        self.code = code
        self.headers = headers
    }

    public var description: String { "\(status) \(message)" }

    public var response: HTTPResponse {
        let error: JSONValue = [
            "message": .string(message), "type": .string(type), "param": JSONValue(param), "code": JSONValue(code),
        ]
        return .json(["error": error], status: status, headers: headers)
    }
}

/// An error that another attempt may well not meet: a worker process that died mid-reply. A reply
/// that fails with one before anything of it was sent is made once more.
public protocol TransientError: Error {
    var isTransient: Bool { get }
}
