import SpeakKit

/// What tests read out of a reply's JSON (SpeakKit itself has `string` only).
extension JSONValue {
    public var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    public var array: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    public var object: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }
}
