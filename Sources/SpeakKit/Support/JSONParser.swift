/// JSON text that is not valid (RFC 8259): what was expected, and at which byte.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    public let offset: Int
    public let expected: String
    public var description: String { "invalid JSON at byte \(offset): expected \(expected)" }
}

extension JSONValue {
    /// Parses JSON text straight into a value, without `Codable`: every `speak` reads the voice
    /// files as it starts, and `JSONDecoder`'s first use (its generic metadata, and a thrown error
    /// for each wrong guess of a value's kind) was most of the time spent loading them.
    public init(parsing text: some Sequence<UInt8>) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(text))
        parser.skipWhitespace()
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("the end of the text") }
    }
}

/// A recursive-descent parser over UTF-8 bytes; nesting is bounded so hostile input cannot
/// exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    static let maximumDepth = 256

    func error(_ expected: String) -> JSONSyntaxError { JSONSyntaxError(offset: position, expected: expected) }

    var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("at most \(Self.maximumDepth) levels of nesting") }
        switch next {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return .number(try number())
        default: throw error("a value")
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        for byte in word.utf8 {
            guard next == byte else { throw error("'\(word)'") }
            position += 1
        }
        return value
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        try items(closedBy: UInt8(ascii: "}")) { parser throws(JSONSyntaxError) in
            guard parser.next == UInt8(ascii: "\"") else { throw parser.error("a member name in quotes") }
            let name = try parser.string()
            parser.skipWhitespace()
            guard parser.next == UInt8(ascii: ":") else { throw parser.error("':'") }
            parser.position += 1
            parser.skipWhitespace()
            let member = try parser.value(depth: depth + 1)
            // A repeated name keeps its first value, as JSONDecoder does.
            if members[name] == nil { members[name] = member }
        }
        return .object(members)
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        var elements: [JSONValue] = []
        try items(closedBy: UInt8(ascii: "]")) { parser throws(JSONSyntaxError) in
            elements.append(try parser.value(depth: depth + 1))
        }
        return .array(elements)
    }

    /// The comma-separated items of an object or array, from its opening bracket (at `position`)
    /// through `closing`: `item` reads each one, starting at its first non-blank byte.
    mutating func items(
        closedBy closing: UInt8, _ item: (inout JSONParser) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        position += 1
        skipWhitespace()
        if next == closing {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try item(&self)
            skipWhitespace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case closing:
                position += 1
                return
            default: throw error("',' or '\(Character(Unicode.Scalar(closing)))'")
            }
        }
    }

    /// A quoted string, escapes resolved; the text between escapes is copied as it is, and must be
    /// valid UTF-8.
    mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        var text: [UInt8] = []
        while true {
            guard let byte = next else { throw error("a closing '\"'") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw JSONSyntaxError(offset: position - 1, expected: "a string of valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"): try escape(into: &text)
            case ..<0x20: throw JSONSyntaxError(offset: position - 1, expected: "no control character in a string")
            default: text.append(byte)
            }
        }
    }

    mutating func escape(into text: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = next else { throw error("an escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return text.append(byte)
        case UInt8(ascii: "b"): return text.append(0x08)
        case UInt8(ascii: "f"): return text.append(0x0C)
        case UInt8(ascii: "n"): return text.append(0x0A)
        case UInt8(ascii: "r"): return text.append(0x0D)
        case UInt8(ascii: "t"): return text.append(0x09)
        case UInt8(ascii: "u"): break
        default: throw JSONSyntaxError(offset: position - 1, expected: "a valid escape")
        }
        var scalar = try hexQuad()
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate: the low one must follow as its own \u escape.
            guard next == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
            else { throw error("a low surrogate after a high one") }
            position += 2
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low) else { throw error("a low surrogate after a high one") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("a Unicode scalar, not a lone surrogate") }
        text.append(contentsOf: String(Character(unicode)).utf8)
    }

    mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigit(bytes[position]) else { throw error("a hex digit") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read as a Double.
    mutating func number() throws(JSONSyntaxError) -> Double {
        let start = position
        if next == UInt8(ascii: "-") { position += 1 }
        if next == UInt8(ascii: "0") {
            position += 1
        } else {
            guard digits() > 0 else { throw error("a digit") }
        }
        if next == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("a digit after '.'") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("an exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)), value.isFinite else {
            throw JSONSyntaxError(offset: start, expected: "a number a Double can hold")
        }
        return value
    }

    mutating func digits() -> Int {
        let start = position
        while let byte = next, (0x30...0x39).contains(byte) { position += 1 }
        return position - start
    }
}
