import FoundationEssentials

/// A value that threads share behind a lock, as in ``Locked``, that a thread can also wait on until
/// it is as the thread needs: a class that keeps its state in one holds only `let`s, and the
/// compiler checks that it is `Sendable` instead of taking its word for it.
///
/// `@unchecked` only for the lock itself: the value is reached only with the lock held, and goes in
/// and comes out as `sending`, as in ``Locked``.
public final class LockedCondition<Value>: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var value: Value

    public init(_ value: sending Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; keep it short and never call out from it.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// As ``withLock(_:)``, then wakes every thread waiting on the value, so each looks at it again.
    public func change<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits until `isReady` holds for the value, then runs `body` with it, the lock held from the
    /// last look through `body`, so nothing changes the value between the two.
    public func wait<Result, Failure: Error>(
        until isReady: (inout sending Value) -> Bool, then body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        condition.lock()
        defer { condition.unlock() }
        while !isReady(&value) { condition.wait() }
        return try body(&value)
    }

    /// Waits until `isReady` holds for the value.
    public func wait(until isReady: (inout sending Value) -> Bool) { wait(until: isReady) { _ in } }

    /// Waits until `isReady` holds for the value or `deadline` passes; whether it holds.
    @discardableResult
    public func wait(until isReady: (inout sending Value) -> Bool, deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isReady(&value) {
            guard condition.wait(until: deadline) else { return isReady(&value) }
        }
        return true
    }
}
