import FoundationEssentials
import Glibc

/// A POSIX mutex, as Foundation's `NSLock` is: SpeakKit builds on FoundationEssentials alone (see
/// Package.swift), and ThreadSanitizer sees pthread mutexes, where it cannot see `Mutex`'s futex.
public final class ThreadLock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable, as Foundation's `NSCondition` is.
public final class ThreadCondition: @unchecked Sendable {
    private let mutex = ThreadLock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() { pthread_cond_init(condition, nil) }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    public func lock() { mutex.lock() }
    public func unlock() { mutex.unlock() }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result { try mutex.withLock(body) }

    /// Waits, holding the lock, until signalled (or woken spuriously: callers loop on their state).
    public func wait() { pthread_cond_wait(condition, mutex.mutex) }

    /// As ``wait()``, giving up at `deadline`; `false` once it has passed.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = max(deadline.timeIntervalSince1970, 0)
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        return pthread_cond_timedwait(condition, mutex.mutex, &time) != ETIMEDOUT
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Writes `text` to standard error as one write(2): messages from threads do not interleave.
public func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        try? SystemCall.writeAll("write", UnsafeRawBufferPointer(bytes)) { pointer, count, _ in
            Glibc.write(STDERR_FILENO, pointer, count)
        }
    }
}
