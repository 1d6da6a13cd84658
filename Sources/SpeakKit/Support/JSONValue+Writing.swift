import FoundationEssentials

/// Written as literals, so a server's reply reads as the JSON it sends:
/// `.json(["status": "ok", "seconds": .number(seconds)])`.
extension JSONValue: ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { _, last in last })
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }

    /// A string, or `null` for nil.
    public init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    public init(_ value: Int) { self = .number(Double(value)) }
    public init(_ value: Double) { self = .number(value) }

    /// The value as JSON text, keys sorted: the same text as ``canonical``.
    public var data: Data { Data(canonical.utf8) }

    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }
}
