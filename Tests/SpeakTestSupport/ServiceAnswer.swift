import Foundation
import SpeakKit

/// A response as a client receives it, whichever way it came: from the service called in process
/// or read off the wire from a real server.
public struct ServiceAnswer: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    /// The reply was streamed (chunked on the wire), not answered whole.
    public var streamed = false
    /// The stream failed after its first bytes: the client gets a chunked reply cut short, which
    /// it sees as an error, never a whole 200.
    public var cut = false

    public init(status: Int, headers: [(String, String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header of `name`, in any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    public var json: [String: JSONValue]? {
        guard case .object(let members) = try? JSONValue(parsing: body) else { return nil }
        return members
    }

    /// OpenAI's error object: `{"error": {"message", "type", "param", "code"}}`.
    public var error: [String: JSONValue]? {
        guard case .object(let members)? = json?["error"] else { return nil }
        return members
    }

    public var errorMessage: String? {
        guard case .string(let message)? = error?["message"] else { return nil }
        return message
    }

    public func errorField(_ name: String) -> String? {
        guard case .string(let value)? = error?[name] else { return nil }
        return value
    }
}
