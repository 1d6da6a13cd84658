import FoundationEssentials
import Glibc

/// A value that threads share behind a lock.
///
/// Used instead of the standard library's `Mutex`: on Linux `Mutex` waits on a futex directly, which
/// ThreadSanitizer cannot see, so every contended `withLock` is reported as a data race (reproduced
/// with four threads on one `Mutex<[K: V]>`: a warning per run; with this type, none). A false
/// report in CI's TSan run would hide a true one, so the project has this one lock type.
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

/// State that threads share behind a lock, with a condition to wait on until another thread
/// changes it: a monitor. Its state is `Sendable`, so nothing read out of it can race.
///
/// On ``ThreadCondition``, not `Mutex`, for the reason ``Locked`` gives. `@unchecked` only for
/// the lock: every access to `state` goes through ``withLock(_:)`` or ``withCondition(_:)``.
public final class Monitor<State: Sendable>: @unchecked Sendable {
    @usableFromInline let condition = ThreadCondition()
    @usableFromInline var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with the state, holding the lock.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Runs `body` holding the lock, with ``Held`` to read and change the state and to wait.
    @inlinable
    public func withCondition<Result, Failure: Error>(_ body: (borrowing Held) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        condition.lock()
        defer { condition.unlock() }
        return try body(Held(monitor: self))
    }

    /// Wakes one waiter; with the lock held or not.
    public func signal() { condition.signal() }
    /// Wakes every waiter; with the lock held or not.
    public func broadcast() { condition.broadcast() }

    /// The lock, held for the length of a ``Monitor/withCondition(_:)`` body. Each access to
    /// `state` is its own, so none spans a wait, while which other threads change the state.
    /// Not copyable, and lent to the body only: it cannot outlive the lock.
    public struct Held: ~Copyable {
        @usableFromInline let monitor: Monitor

        @inlinable init(monitor: Monitor) { self.monitor = monitor }

        @inlinable
        public var state: State {
            _read { yield monitor.state }
            nonmutating _modify { yield &monitor.state }
        }

        /// Releases the lock until signalled (or woken spuriously: loop on the state), then takes it back.
        public func wait() { monitor.condition.wait() }

        /// As ``wait()``, giving up at `deadline`; `false` once it has passed.
        @discardableResult
        public func wait(until deadline: Date) -> Bool { monitor.condition.wait(until: deadline) }

        public func signal() { monitor.condition.signal() }
        public func broadcast() { monitor.condition.broadcast() }
    }
}
