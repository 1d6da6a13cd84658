import Foundation
import SpeakKit

/// A fixed number of threads at most, started as needed, running jobs in order of submission.
/// Bounded because every job belongs to a connection, and connections are bounded.
final class ThreadPool: Sendable {
    private struct State {
        var jobs: [(@Sendable () -> Void)?] = []
        var next = 0
        var threads = 0
        var idle = 0

        mutating func take() -> @Sendable () -> Void {
            let job = jobs[next]!
            jobs[next] = nil
            next += 1
            if next > 256 && next * 2 > jobs.count {
                jobs.removeFirst(next)
                next = 0
            }
            return job
        }
    }
    private let state = Monitor(State())
    let maximumThreads: Int
    /// The threads' name (in `top -H`, `/proc/…/task/…/comm`): else they inherit the name of
    /// the libmicrohttpd thread that started them.
    let name: String

    init(maximumThreads: Int, name: String) {
        self.maximumThreads = maximumThreads
        self.name = name
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        let start = state.withCondition { held in
            held.state.jobs.append(job)
            let start = held.state.jobs.count - held.state.next > held.state.idle && held.state.threads < maximumThreads
            if start { held.state.threads += 1 }
            held.signal()
            return start
        }
        if start { Thread.detachNewThread { [self] in work() } }
    }

    private func work() {
        // Not `Thread.current.name`: Foundation names the OS thread only once the thread that
        // started this one has recorded its handle, and a new thread that runs first kept the name
        // of the libmicrohttpd thread that started it (3 of 27, forty requests at once). Glibc's
        // pthread_setname_np is not visible to Swift; this file is what it writes.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 {
            _ = name.withCString { write(comm, $0, strlen($0)) }
            close(comm)
        }
        while true {
            let job = state.withCondition { held in
                while held.state.next == held.state.jobs.count {
                    held.state.idle += 1
                    held.wait()
                    held.state.idle -= 1
                }
                // Taken out, so what it holds (a request's spooled uploads) goes when it ends.
                return held.state.take()
            }
            job()
        }
    }
}

/// A count many threads change and one may wait on.
final class Gauge: Sendable {
    private let count = Monitor(0)

    /// Adds `delta`; the new count.
    @discardableResult
    func add(_ delta: Int) -> Int {
        defer { count.broadcast() }
        return count.withLock {
            $0 += delta
            return $0
        }
    }

    var value: Int { count.withLock { $0 } }

    /// Waits until the count is at most `limit`, or `deadline` passes.
    func wait(untilAtMost limit: Int, deadline: Date) {
        count.withCondition { held in
            while held.state > limit && held.wait(until: deadline) {}
        }
    }
}
