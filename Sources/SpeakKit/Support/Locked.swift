import FoundationEssentials
import Glibc

/// A value that threads share behind a lock.
///
/// Used instead of the standard library's `Mutex`: on Linux `Mutex` waits on a futex directly, which
/// ThreadSanitizer cannot see, so a contended `withLock` is reported as a data race. A false report
/// in CI's TSan run would hide a true one, so the project locks with pthread mutexes, which it sees.
///
/// `@unchecked` only for the lock itself: as with `Mutex`, the value goes in and comes out as
/// `sending`, so the compiler still checks that no unprotected reference to it escapes.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = ThreadLock()
    private var value: Value

    public init(_ value: sending Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; keep it short and never call out from it.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
