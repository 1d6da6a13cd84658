import Foundation
import SpeakKit

/// RFC 6455 WebSockets: the opening handshake, the frames a server sends, and the close codes.
/// The frames a client sends are read by ``WebSocketReader``; a connection's I/O is
/// ``WebSocketConnection``'s.
public enum WebSocket {
    /// What runs an upgraded connection, on a thread of its own: it returns when the session is
    /// over, and the server then closes the connection (with a close frame if none was sent).
    public typealias Session = @Sendable (WebSocketConnection) -> Void

    public enum Opcode: UInt8, Sendable {
        case continuation = 0
        case text = 1
        case binary = 2
        case close = 8
        case ping = 9
        case pong = 10

        var isControl: Bool { rawValue >= 8 }
    }

    /// Why a connection is closed (RFC 6455 section 7.4.1).
    public struct CloseCode: RawRepresentable, Sendable, Equatable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let normal = CloseCode(rawValue: 1000)
        public static let goingAway = CloseCode(rawValue: 1001)
        public static let protocolError = CloseCode(rawValue: 1002)
        /// Text that is not UTF-8.
        public static let invalidData = CloseCode(rawValue: 1007)
        public static let policyViolation = CloseCode(rawValue: 1008)
        public static let messageTooBig = CloseCode(rawValue: 1009)
        public static let internalError = CloseCode(rawValue: 1011)

        /// Whether a peer may send it in a close frame: 1004–1006 and 1015 are reserved for
        /// reporting, not for the wire; 3000–4999 belong to libraries and applications.
        var isSendable: Bool {
            switch rawValue {
            case 1000...1003, 1007...1014, 3000...4999: true
            default: false
            }
        }

        public var description: String { String(rawValue) }
    }

    /// RFC 6455's fixed GUID, appended to the client's key.
    static let handshakeGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` answering a client's `Sec-WebSocket-Key`.
    static func acceptKey(_ key: String) -> String {
        Data(SHA1.digest(Array((key + handshakeGUID).utf8))).base64EncodedString()
    }

    /// The 101 that upgrades `request`, a WebSocket opening handshake, to a connection that
    /// `session` runs; the client's mistake as an ``HTTPError`` when it is not one. Of the
    /// subprotocols the client offers, the first that `protocols` names is the one answered.
    public static func upgrade(
        _ request: HTTPRequest, protocols: [String] = [], session: @escaping Session
    ) throws(HTTPError) -> HTTPResponse {
        guard request.method == "GET" else { throw HTTPError(405, "a WebSocket opens with GET") }
        guard hasToken("websocket", in: request.header("Upgrade")) else {
            throw HTTPError(
                426, "this endpoint is a WebSocket: send Upgrade: websocket", code: "upgrade_required",
                headers: [("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")])
        }
        guard hasToken("upgrade", in: request.header("Connection")) else {
            throw HTTPError(400, "a WebSocket handshake needs Connection: Upgrade", code: "invalid_handshake")
        }
        guard request.header("Sec-WebSocket-Version")?.trimmingCharacters(in: .whitespaces) == "13" else {
            throw HTTPError(
                426, "only WebSocket version 13 is spoken", code: "upgrade_required",
                headers: [("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")])
        }
        guard let key = request.header("Sec-WebSocket-Key")?.trimmingCharacters(in: .whitespaces),
            Data(base64Encoded: key)?.count == 16
        else {
            throw HTTPError(
                400, "Sec-WebSocket-Key must be 16 bytes in base64", param: "Sec-WebSocket-Key",
                code: "invalid_handshake")
        }
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acceptKey(key))]
        // A browser fails a connection whose 101 names no protocol when it offered some, or one it did not offer.
        if let chosen = offeredProtocols(request).first(where: protocols.contains) {
            headers.append(("Sec-WebSocket-Protocol", chosen))
        }
        return HTTPResponse(status: 101, headers: headers, body: .upgrade(session))
    }

    /// The subprotocols a handshake offers (`Sec-WebSocket-Protocol`), in its order.
    public static func offeredProtocols(_ request: HTTPRequest) -> [String] {
        (request.header("Sec-WebSocket-Protocol") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether the comma-separated header `value` lists `token` (case-insensitively).
    private static func hasToken(_ token: String, in value: String?) -> Bool {
        value?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token } ?? false
    }

    /// One unmasked frame, as a server sends it.
    static func frame<Payload: Collection<UInt8>>(_ opcode: Opcode, _ payload: Payload, final: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode.rawValue]
        frame.reserveCapacity(payload.count + 10)
        switch payload.count {
        case ..<126: frame.append(UInt8(payload.count))
        case ..<65536: frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(127)
            frame += stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> $0) }
        }
        frame += payload
        return frame
    }

    /// A close frame's payload: the code, then a reason cut to fit a control frame's 125 bytes.
    static func closePayload(_ code: CloseCode, reason: String) -> [UInt8] {
        var reason = Array(reason.utf8.prefix(123))
        // A cut must not split a character: drop continuation bytes left without their lead.
        while String(validating: reason, as: UTF8.self) == nil { reason.removeLast() }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reason
    }
}
