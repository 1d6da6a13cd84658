import Foundation
import SpeakKit

/// One Wyoming message: a type, its JSON `data`, and raw bytes (PCM for audio events).
///
/// On the wire: one JSON header line `{"type", "version", "data_length", "payload_length"}`, then
/// `data_length` bytes of JSON (merged over any `data` in the header), then `payload_length` bytes.
public struct WyomingEvent: Sendable, Equatable {
    /// The protocol version this server writes, as the `wyoming` package it was checked against.
    public static let version = "1.10.2"

    public var type: String
    public var data: [String: JSONValue]
    public var payload: [UInt8]

    public init(_ type: String, _ data: [String: JSONValue] = [:], payload: [UInt8] = []) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    /// The bytes to send. The data goes after the header line, as the `wyoming` package writes it,
    /// so the line stays short whatever the data holds.
    public var encoded: [UInt8] {
        let body = data.isEmpty ? [] : Array(JSONValue.object(data).canonical.utf8)
        var header: [String: JSONValue] = ["type": .string(type), "version": .string(Self.version)]
        if !body.isEmpty { header["data_length"] = .number(Double(body.count)) }
        if !payload.isEmpty { header["payload_length"] = .number(Double(payload.count)) }
        return Array(JSONValue.object(header).canonical.utf8) + [0x0A] + body + payload
    }

    // MARK: - Reading data fields

    public func string(_ key: String) -> String? {
        if case .string(let value)? = data[key] { return value }
        return nil
    }

    public func integer(_ key: String) -> Int? {
        if case .number(let value)? = data[key], value == value.rounded(), abs(value) < 1e12 { return Int(value) }
        return nil
    }

    public func object(_ key: String) -> [String: JSONValue]? {
        if case .object(let value)? = data[key] { return value }
        return nil
    }

    /// An `error` event: what went wrong in a sentence, and a short code a program can test.
    public static func error(_ text: String, code: String) -> WyomingEvent {
        WyomingEvent("error", ["text": .string(text), "code": .string(code)])
    }
}
