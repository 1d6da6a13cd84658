import Foundation
import Testing

@testable import SpeakKit

/// The voice files' parser agrees with Foundation's JSONDecoder on valid JSON and refuses what
/// RFC 8259 does not allow, saying where.
@Suite("JSON parser")
struct JSONParserTests {
    static let valid = [
        #"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#,
        #"  [1, -0, 0.5, -12.25e3, 1E-2, 1e+2]  "#,
        #""a \"quoted\" \\ slash \/ \b\f\n\r\t end""#,
        #""\u00e9\u0301 \u0253 \ud83d\ude00 ɓ 😀""#,
        #"{"nested": [[[{"x": []}]]], "empty": {}}"#,
        "{\"duplicate\": 1, \"duplicate\": 2}",
        "3", "\"\"", "null",
    ]

    @Test("valid JSON parses to what JSONDecoder makes of it", arguments: valid)
    func agreesWithJSONDecoder(_ text: String) throws {
        let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try JSONValue(parsing: text.utf8) == expected)
    }

    @Test("every shipped voice file parses as JSONDecoder reads it")
    func shippedVoices() throws {
        let directory = try #require(VoiceCatalog.shippedDirectory())
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count >= 8)
        for file in files where file.pathExtension == "json" {
            let data = try Data(contentsOf: file)
            #expect(
                try Voice(json: JSONValue(parsing: data)) == JSONDecoder().decode(Voice.self, from: data),
                "\(file.lastPathComponent)")
        }
    }

    static let invalid: [(text: String, offset: Int)] = [
        ("", 0), ("[1, 2,]", 6), ("{\"a\" 1}", 5), ("{\"a\": 1,}", 8), ("01", 1), ("1.", 2), ("-", 1), ("1e", 2),
        ("\"open", 5), ("\"tab\there\"", 4), ("\"\\x\"", 2), ("\"\\ud83d\"", 7), ("\"\\udc00\"", 7), ("tru", 3),
        ("[1] 2", 4), ("{'a': 1}", 1), ("1e400", 0), ("NaN", 0),
    ]

    @Test("invalid JSON is refused at the byte where it goes wrong", arguments: invalid)
    func refusesInvalid(_ text: String, _ offset: Int) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text.utf8) }
        do {
            _ = try JSONValue(parsing: text.utf8)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test("invalid UTF-8 inside a string is refused")
    func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("nesting is bounded: deep input is an error, not a stack overflow")
    func boundedNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: deep.utf8) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect((try? JSONValue(parsing: fine.utf8)) != nil)
    }

    @Test("a voice file of the wrong shape says which field is wrong")
    func voiceShape() throws {
        #expect(throws: VoiceFormatError.self) { try Voice(json: JSONValue(parsing: #"{"name": 5}"#.utf8)) }
        do {
            _ = try Voice(json: JSONValue(parsing: #"{"name": "a", "language": "en", "rate": 17.5}"#.utf8))
            Issue.record("a fractional rate was accepted")
        } catch {
            #expect(String(describing: error).contains("'rate'"))
        }
        let legacy = try Voice(
            json: JSONValue(parsing: #"{"name": "n", "language": "ha", "espeakVoice": "sw", "variant": "f3"}"#.utf8))
        #expect(legacy.engine == "espeak")
        #expect(legacy.settings == .object(["voice": .string("sw"), "variant": .string("f3")]))
        let upstream = try Voice(json: JSONValue(parsing: #"{"name": "u", "language": "en", "upstream": {}}"#.utf8))
        #expect(upstream.engine == "upstream" && upstream.rate == 175 && upstream.pitch == 50)
    }

    @Test("written JSON reads back as the same value, control characters and all")
    func writesWhatItReads() throws {
        let text = "line one\nline\ttwo \"quoted\" back\\slash /path \u{01}\u{1F} Na gode ɓ 🎉"
        let value: JSONValue = [
            "text": .string(text), "count": 3, "ratio": 0.25, "ok": true, "none": nil, "list": [1, "two"],
            "nested": ["deeper": JSONValue(nil as String?)],
        ]
        #expect(try JSONValue(parsing: value.data) == value)
        #expect(value.canonical.contains(#""line one\nline\ttwo \"quoted\" back\\slash /path \u0001\u001f"#))
        #expect(JSONValue.number(.infinity).canonical == "null")
        let unordered: JSONValue = ["b": 1, "a": 2]
        #expect(unordered.canonical == #"{"a":2,"b":1}"#)
    }
}
