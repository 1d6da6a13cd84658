import FoundationEssentials
import Glibc

/// A system call that failed: its name and `errno`, with the C library's message for it.
package struct SystemCallError: Error, CustomStringConvertible, Sendable {
    package let function: String
    package let code: Int32

    package init(_ function: String, code: Int32 = errno) {
        self.function = function
        self.code = code
    }

    package var message: String { String(cString: strerror(code)) }
    package var description: String { "\(function): \(message)" }
}

/// The one way SpeakKit calls the system where `errno` matters: retried on `EINTR`, failures
/// thrown as ``SystemCallError`` with `strerror`'s message, partial reads and writes completed.
package enum SystemCall {
    /// `body()` until it returns something other than -1 with `EINTR`; a negative result throws.
    /// A signal after which `stop()` is true (Ctrl-C) throws `EINTR` instead of waiting on.
    @discardableResult
    package static func retrying<Result: BinaryInteger>(
        _ function: String, stoppingIf stop: () -> Bool = { false }, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno != EINTR || stop() { throw SystemCallError(function) }
        }
    }

    /// Hands `bytes` to `body(pointer, count, offset)` (a `write`, `send` or `pwrite`) until all
    /// of them are taken. A call that takes nothing is a failure (`EPIPE` when `errno` is unset).
    package static func writeAll(
        _ function: String, _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawPointer, Int, Int) -> Int
    ) throws(SystemCallError) {
        var done = 0
        while done < bytes.count {
            errno = 0
            let written = try retrying(function) { body(bytes.baseAddress! + done, bytes.count - done, done) }
            guard written > 0 else { throw SystemCallError(function, code: errno == 0 ? EPIPE : errno) }
            done += written
        }
    }

    /// Fills `buffer` from `body(pointer, count)` (a `read` or `recv`). Returns how many bytes it
    /// holds: fewer than asked only at end of input.
    package static func readFully(
        _ function: String, into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeMutableRawPointer, Int) -> Int
    ) throws(SystemCallError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try retrying(function) { body(buffer.baseAddress! + done, buffer.count - done) }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Waits for child `pid` to end; its raw wait status.
    @discardableResult
    package static func waitForExit(_ pid: pid_t, options: Int32 = 0) throws(SystemCallError) -> (
        pid: pid_t, status: Int32
    ) {
        var status: Int32 = 0
        let reaped = try retrying("waitpid") { waitpid(pid, &status, options) }
        return (reaped, status)
    }
}

/// One environment variable, `nil` when unset. `ProcessInfo.processInfo.environment` copies every
/// variable into a dictionary on each call, which a command that must start fast does not need.
public func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
