import Foundation
import FuzzDriver

@testable import SpeakServer

// libFuzzer harness: the multipart parser on arbitrary bodies, fed in pieces of arbitrary size.
// Built only by Scripts/fuzz.

private let spool: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("speak-fuzz-multipart-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // libFuzzer ends a run with exit(3): the spool goes then (a crash leaves it, with the reproducer).
    atexit { try? FileManager.default.removeItem(at: spool) }
    return directory
}()

/// Byte 0: the piece size (1–256); bytes 1–2: the field cap; then a Content-Type line ending in
/// CRLF, whose boundary (if any, else "B") delimits the body that follows.
// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard input.count >= 3 else { return 0 }
    let piece = Int(input[0]) + 1
    let fieldCap = Int(input[1]) | Int(input[2]) << 8
    var rest = input[3...]
    var boundary = "B"
    if let newline = rest.firstIndex(of: 10) {
        let line = String(decoding: rest[..<newline], as: UTF8.self)
        if let found = MultipartParser.boundary(contentType: line), !found.isEmpty { boundary = found }
        rest = rest[(newline + 1)...]
    }
    let body = UnsafeRawBufferPointer(rebasing: rest)
    let parser = MultipartParser(boundary: boundary, spool: spool, maximumFieldBytes: fieldCap)
    do {
        var start = 0
        while start < body.count {
            try parser.feed(UnsafeRawBufferPointer(rebasing: body[start..<min(start + piece, body.count)]))
            start += piece
        }
        let form = try parser.finish()
        for file in form.files.values { _ = try? FileManager.default.attributesOfItem(atPath: file.url.path) }
    } catch {}
    for url in parser.spooled { unlink(url.path) }
    return 0
}
