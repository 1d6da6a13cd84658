import Foundation
import Testing

@testable import SpeakServer

@Suite("multipart uploads, parsed as they stream in")
final class MultipartParserTests {
    let spool = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID())")
    let boundary = "Boundary-7MA4YWxkTrZu0gW"

    init() throws { try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true) }

    /// Swift Testing runs it after each test: `spool` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: spool) }

    /// The seed client's upload: a `language` field and `note.m4a` as audio/mp4.
    func body(file: [UInt8]) -> [UInt8] {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nha\r\n".utf8)
        body += Array(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.m4a\"\r\n"
                + "Content-Type: audio/mp4\r\n\r\n").utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    @Test("fields and files come out whole whatever the pieces", arguments: [1, 2, 7, 40, 1000, 1 << 20])
    func pieces(size: Int) throws {
        // Bytes that look like the start of a boundary must survive inside the file.
        let file =
            (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 31) } + Array("\r\n--Boundary-7MA4\r\n--".utf8) + [
                0, 13, 10,
            ]
        let parser = MultipartParser(boundary: boundary, spool: spool)
        let bytes = body(file: file)
        for start in stride(from: 0, to: bytes.count, by: size) {
            try bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { try parser.feed($0) }
        }
        let form = try parser.finish()
        #expect(form.fields == ["language": "ha"])
        let upload = try #require(form.files["file"])
        #expect(upload.filename == "note.m4a")
        #expect(upload.contentType == "audio/mp4")
        #expect(upload.size == file.count)
        #expect(try Data(contentsOf: upload.url) == Data(file))
    }

    @Test(
        "spaces and tabs after a boundary are padding (RFC 2046); anything else there is refused",
        arguments: [1, 3, 1000])
    func transportPadding(size: Int) throws {
        func parse(_ text: String) throws -> MultipartForm {
            let parser = MultipartParser(boundary: "XYZ", spool: spool)
            let bytes = Array(text.utf8)
            for start in stride(from: 0, to: bytes.count, by: size) {
                try bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { try parser.feed($0) }
            }
            return try parser.finish()
        }
        let padded = try parse(
            "--XYZ \t \r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nen\r\n--XYZ  \r\n"
                + "Content-Disposition: form-data; name=\"model\"\r\n\r\nbase\r\n--XYZ--\r\n")
        #expect(padded.fields == ["language": "en", "model": "base"])
        #expect(throws: HTTPError.self) {
            try parse("--XYZ x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--XYZ--\r\n")
        }
    }

    @Test("a body cut short is an error, not a form")
    func truncated() throws {
        let parser = MultipartParser(boundary: boundary, spool: spool)
        let bytes = body(file: Array(repeating: 7, count: 100))
        try bytes.dropLast(10).withUnsafeBytes { try parser.feed($0) }
        #expect(throws: HTTPError.self) { try parser.finish() }
    }

    @Test("the boundary comes from the Content-Type")
    func boundaryParameter() {
        #expect(MultipartParser.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartParser.boundary(contentType: "multipart/form-data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartParser.boundary(contentType: "application/json") == nil)
    }
}
