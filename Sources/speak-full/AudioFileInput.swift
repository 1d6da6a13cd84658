import Foundation
import SpeakCLI
import SpeakKit

/// An audio file open for decoding, as a regular file: a file named on the command line as it
/// is; a pipe, a FIFO or standard input copied first to a temporary file that has no name, so
/// that it can be decoded more than once (measured, then transcribed) without being held in memory.
final class AudioFileInput {
    /// 1 GiB: hours of audio in any format; more is no recording (`/dev/zero`, say).
    static let maximumBytes = 1 << 30

    let descriptor: Int32

    /// Opens `path` (`-` is standard input). Anything it cannot read is ``InputError`` 66,
    /// "cannot read FILE: reason".
    init(path: String) throws(InputError) {
        let name = path == "-" ? "/dev/stdin" : path
        func failure(_ error: SystemCallError) -> InputError {
            InputError(code: .noInput, message: "cannot read \(path): \(error.message)")
        }
        let file: Int32
        do { file = try SystemCall.retrying("open") { open(name, O_RDONLY | O_CLOEXEC) } } catch {
            throw failure(error)
        }
        var status = stat()
        guard fstat(file, &status) == 0 else {
            close(file)
            throw failure(SystemCallError("fstat"))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard status.st_size <= Self.maximumBytes else {
                close(file)
                throw failure(SystemCallError("read", code: EFBIG))
            }
            descriptor = file
        case S_IFDIR:
            close(file)
            throw failure(SystemCallError("read", code: EISDIR))
        default:
            defer { close(file) }
            do { descriptor = try Self.copyToAnonymousFile(file) } catch { throw failure(error) }
        }
    }

    deinit { close(descriptor) }

    /// Reads `source` to its end into a new temporary file removed at once (it lives while its
    /// descriptor is open), at most ``maximumBytes``.
    private static func copyToAnonymousFile(_ source: Int32) throws(SystemCallError) -> Int32 {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/speak-input-XXXXXX").utf8CString)
        let copy = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard copy >= 0 else { throw SystemCallError("mkstemp") }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        do throws(SystemCallError) {
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { chunk.deallocate() }
            var total = 0
            while true {
                let count = try SystemCall.retrying("read") { read(source, chunk.baseAddress, chunk.count) }
                if count == 0 { return copy }
                total += count
                guard total <= maximumBytes else { throw SystemCallError("read", code: EFBIG) }
                try SystemCall.writeAll("write", UnsafeRawBufferPointer(rebasing: chunk[..<count])) {
                    pointer, count, _ in Glibc.write(copy, pointer, count)
                }
            }
        } catch {
            close(copy)
            throw error
        }
    }
}
