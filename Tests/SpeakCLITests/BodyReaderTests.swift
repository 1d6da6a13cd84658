import Foundation
import SpeakCLI
import Testing

/// The local hand-off's reader of an HTTP body: chunked transfer encoding undone, whatever the
/// pieces the socket delivers, and a broken reply refused rather than trusted.
@Suite("the hand-off's HTTP body reader")
struct BodyReaderTests {
    /// Everything `wire` holds, delivered `piece` bytes at a time.
    static func read(_ wire: String, piece: Int, chunked: Bool = true, length: Int? = nil) throws -> (String, Bool) {
        var rest = Array(wire.utf8)
        var reader = BodyReader(buffered: [], chunked: chunked, remaining: length)
        var body: [UInt8] = []
        while let bytes = try reader.next(from: {
            guard !rest.isEmpty else { return nil }
            defer { rest.removeFirst(min(piece, rest.count)) }
            return Array(rest.prefix(piece))
        }) {
            body += bytes
        }
        return (String(decoding: body, as: UTF8.self), reader.complete)
    }

    @Test("chunks come back joined, split anywhere, extensions ignored", arguments: [1, 2, 3, 7, 64])
    func chunked(piece: Int) throws {
        let (body, complete) = try Self.read("5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n", piece: piece)
        #expect(body == "hello, world")
        #expect(complete)
    }

    @Test("a sized body ends at its length; one cut short is not complete")
    func sized() throws {
        #expect(try Self.read("abcdef", piece: 4, chunked: false, length: 6) == ("abcdef", true))
        #expect(try Self.read("abc", piece: 2, chunked: false, length: 6).1 == false)
    }

    @Test("negative, huge or garbled chunk sizes, and endless size lines, end the body incomplete")
    func broken() throws {
        for wire in [
            "-5\r\nhello\r\n0\r\n\r\n", "7fffffffffffffff\r\nhello\r\n", "zz\r\nhello\r\n",
            String(repeating: "1", count: 4000),
        ] {
            let (_, complete) = try Self.read(wire, piece: 3)
            #expect(!complete, "\(wire.prefix(20))")
        }
    }
}
