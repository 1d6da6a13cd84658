import Foundation

/// A value that threads share behind a lock.
///
/// Used instead of the standard library's `Mutex`: on Linux `Mutex` waits on a futex directly, which
/// ThreadSanitizer cannot see, so every contended `withLock` is reported as a data race (reproduced
/// with four threads on one `Locked<[K: V]>`: a warning per run; with this type, none). A false
/// report in CI's TSan run would hide a true one, so the project has this one lock type.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; keep it short and never call out from it.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
