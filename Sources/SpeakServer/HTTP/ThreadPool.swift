import Foundation
import SpeakKit

/// A fixed number of threads at most, started as needed, running jobs in order of submission.
/// Bounded because every job belongs to a connection, and connections are bounded.
final class ThreadPool: @unchecked Sendable {  // guarded by `condition`
    private let condition = ThreadCondition()
    private var jobs: [(@Sendable () -> Void)?] = []
    private var next = 0
    private var threads = 0
    private var idle = 0
    let maximumThreads: Int
    /// The threads' name (in `top -H`, `/proc/…/task/…/comm`): else they inherit the name of
    /// the libmicrohttpd thread that started them.
    let name: String

    init(maximumThreads: Int, name: String) {
        self.maximumThreads = maximumThreads
        self.name = name
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let start = jobs.count - next > idle && threads < maximumThreads
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start { Thread.detachNewThread { [self] in work() } }
    }

    private func work() {
        // Not `Thread.current.name`: Foundation names the OS thread only once the thread that
        // started this one has recorded its handle, so a new thread that runs first keeps the name
        // of the libmicrohttpd thread that started it. Glibc's pthread_setname_np is not visible to
        // Swift; this file is what it writes.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            _ = name.withCString { write(comm, $0, strlen($0)) }
            close(comm)
        }
        while true {
            condition.lock()
            while next == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            // Taken out, so what it holds (a request's spooled uploads) goes when it ends.
            let job = jobs[next]!
            jobs[next] = nil
            next += 1
            if next > 256 && next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job()
        }
    }
}

/// A count many threads change and one may wait on.
final class Gauge: Sendable {
    private let count = LockedCondition(0)

    /// Adds `delta`; the new count.
    @discardableResult
    func add(_ delta: Int) -> Int {
        count.change { count in
            count += delta
            return count
        }
    }

    var value: Int { count.withLock { $0 } }

    /// Waits until the count is at most `limit`, or `deadline` passes.
    func wait(untilAtMost limit: Int, deadline: Date) { count.wait(until: { $0 <= limit }, deadline: deadline) }
}
