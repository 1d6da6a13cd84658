import Foundation
import FuzzDriver
import SpeakWyoming

// libFuzzer harness: the Wyoming event reader on arbitrary bytes, as a client could send them.
// Every event read must be within the limits and encode back to bytes that read as itself; an
// error that keeps the connection must have consumed input (else a client could spin the server).
// Built only by Scripts/fuzz.

// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzWyoming(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(fuzzInput(data, size))
    let limits = WyomingLimits()
    var reader = EventReader(descriptor: memoryFile(bytes), limits: limits)
    defer { close(reader.descriptor) }
    // Each round consumes at least one byte (a line's newline or the end), so this bounds the loop.
    for _ in 0...bytes.count {
        do {
            guard let event = try reader.next() else { return 0 }
            precondition(event.payload.count <= limits.payloadBytes)
            let copy = event.encoded
            var again = EventReader(descriptor: memoryFile(copy), limits: limits)
            defer { close(again.descriptor) }
            precondition((try? again.next()) == event, "an event does not read back as itself")
        } catch let error as WyomingReadError {
            guard error.keepsConnection else { return 0 }
        } catch {
            preconditionFailure("the reader threw something other than a WyomingReadError: \(error)")
        }
    }
    preconditionFailure("more events than bytes: the reader is not consuming its input")
}

/// A descriptor reading `bytes` from an unlinked temporary file: large inputs would fill a pipe
/// before it is read.
private func memoryFile(_ bytes: [UInt8]) -> Int32 {
    var template = Array("/tmp/fuzz-wyoming-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(descriptor >= 0, "mkstemp: \(String(cString: strerror(errno)))")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    bytes.withUnsafeBytes { buffer in
        var done = 0
        while done < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + done, buffer.count - done)
            precondition(written > 0)
            done += written
        }
    }
    lseek(descriptor, 0, SEEK_SET)
    return descriptor
}
