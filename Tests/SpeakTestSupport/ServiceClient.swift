import Foundation

/// One request to speak's HTTP service, as a test states it.
public struct ServiceRequest: Sendable {
    public var method: String
    public var path: String
    /// Query arguments, not yet percent-encoded.
    public var query: [String: String]
    /// Header names lowercased.
    public var headers: [String: String]
    /// `nil`: no body (on the wire, no Content-Length either).
    public var body: Data?
    /// The client's IP address, a loopback one (any of 127/8); `nil`: 127.0.0.1.
    public var address: String?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data? = nil, address: String? = nil
    ) {
        (self.method, self.path, self.query, self.headers) = (method, path, query, headers)
        (self.body, self.address) = (body, address)
    }
}

/// Something that answers speak's HTTP routes: the service called in process, or a real server
/// over a socket (``WireClient``). A test written against it runs either way.
public protocol ServiceClient {
    /// The Authorization header sent when a call does not name its own.
    var authorization: String? { get }
    func send(_ request: ServiceRequest) -> ServiceAnswer
}

extension ServiceClient {
    /// `method path` with the client's own authorization.
    public func call(
        _ method: String, _ path: String, query: [String: String] = [:], json: String? = nil, body: Data? = nil,
        headers: [String: String] = [:], address: String? = nil
    ) -> ServiceAnswer {
        call(
            method, path, query: query, json: json, body: body, headers: headers, authorization: authorization,
            address: address)
    }

    /// `method path` with this Authorization header (`nil`: none). `json` is the body, sent as
    /// application/json; else `body` as it is, its Content-Type among `headers`.
    public func call(
        _ method: String, _ path: String, query: [String: String] = [:], json: String? = nil, body: Data? = nil,
        headers: [String: String] = [:], authorization: String?, address: String? = nil
    ) -> ServiceAnswer {
        var all = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { $1 }
        if let authorization { all["authorization"] = authorization }
        if json != nil { all["content-type"] = "application/json" }
        return send(
            ServiceRequest(
                method: method, path: path, query: query, headers: all, body: json.map { Data($0.utf8) } ?? body,
                address: address))
    }
}
