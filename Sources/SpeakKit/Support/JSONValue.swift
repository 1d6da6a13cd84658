import FoundationEssentials
import Glibc

/// A JSON value kept as it was read: the part of a voice file that belongs to one engine, which
/// only that engine's own code decodes into its own settings type.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // The likeliest kinds first: every wrong guess throws, and throwing costs. (Voice files do
        // not come this way: `JSONValue(parsing:)` reads them.)
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// This value decoded as `type`, e.g. an engine's settings struct.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }

    /// `value` in quotes, escaped as RFC 8259 asks (`"`, `\\` and control characters; `/` is
    /// left alone). By hand: Foundation's replacingOccurrences goes through NSString, and this runs
    /// for every request the server answers, cache hits included.
    private static func quoted(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 < 0x20 }) else {
            return "\"" + value + "\""
        }
        var escaped = [UInt8(ascii: "\"")]
        for byte in value.utf8 {
            switch byte {
            case 0x5C, 0x22: escaped += [0x5C, byte]
            case 0x0A: escaped += Array("\\n".utf8)
            case 0x0D: escaped += Array("\\r".utf8)
            case 0x09: escaped += Array("\\t".utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                escaped += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: escaped.append(byte)
            }
        }
        escaped.append(UInt8(ascii: "\""))
        return String(decoding: escaped, as: UTF8.self)
    }

    /// One fixed spelling of the value (keys sorted), for cache keys and replies. Numbers that are
    /// not finite have no JSON spelling and are written as `null`.
    public var canonical: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let value) where !value.isFinite: "null"
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): Self.quoted(value)
        case .array(let values): "[" + values.map(\.canonical).joined(separator: ",") + "]"
        case .object(let members):
            "{"
                + members.sorted { $0.key < $1.key }.map {
                    JSONValue.string($0.key).canonical + ":" + $0.value.canonical
                }
                .joined(separator: ",") + "}"
        }
    }
}

extension DecodingError {
    /// What is wrong, in words a user can act on: "'speaker' must be a whole number", "missing
    /// 'phoneme_id_map'", where the error's own description is a dump of coding keys and contexts.
    public var summary: String {
        func path(_ context: Context, adding key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacing(".[", with: "[")
        }
        func kind(_ type: Any.Type) -> String {
            switch type {
            case is String.Type: "a string"
            case is Bool.Type: "true or false"
            case is any BinaryInteger.Type: "a whole number"
            case is any BinaryFloatingPoint.Type: "a number"
            case is [Any].Type: "a list"
            default: "an object"
            }
        }
        switch self {
        case .keyNotFound(let key, let context): return "missing '\(path(context, adding: key))'"
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty ? "not \(kind(type))" : "'\(path(context))' must be \(kind(type))"
        case .valueNotFound(let type, let context): return "'\(path(context))' must be \(kind(type)), not null"
        case .dataCorrupted(let context):
            let at = context.codingPath.isEmpty ? "" : "'\(path(context))': "
            return at + (context.debugDescription.isEmpty ? "not valid JSON" : context.debugDescription)
        @unknown default: return String(describing: self)
        }
    }
}
