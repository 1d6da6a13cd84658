import Foundation
import Testing

@testable import SpeakKit

/// Workers that die: killed while idle, or before a request's first PCM (issue 11, item 8).
@Suite("worker processes that die")
struct WorkerPoolFaultTests {
    static let executable = WorkerPoolTests.executable

    /// Whether `pid` is gone entirely: not running and not a zombie waiting to be reaped.
    static func isReaped(_ pid: pid_t) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    @Test("a worker killed while idle is reaped and replaced at once, and the next request gets all of its audio")
    func killedWhileIdle() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        let pid = try #require(pool.idleProcessIDs.first)
        kill(pid, SIGKILL)
        // Straight away, before the pool may have noticed: the request is retried on a fresh worker.
        let text = "Still here after the kill."
        #expect(try WorkerPoolTests.matches(WorkerPoolTests.reply(pool, WorkerPoolTests.request(text)), text))
        #expect(pool.waitForReplacements(1, seconds: 10))
        #expect(Self.isReaped(pid), "the killed worker is no zombie")
        #expect(!pool.idleProcessIDs.contains(pid))
    }

    @Test("idle workers killed one after another are each replaced without a request")
    func replacedWithoutRequest() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 2)
        let first = pool.idleProcessIDs
        for pid in first { kill(pid, SIGKILL) }
        #expect(pool.waitForReplacements(2, seconds: 10))
        #expect(first.allSatisfy(Self.isReaped))
        #expect(pool.idleProcessIDs.count == 2)
        #expect(Set(pool.idleProcessIDs).isDisjoint(with: first))
    }

    @Test("a worker dying mid-reply is an error for that reply, not a retry that repeats audio")
    func diesMidReply() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        let pid = try #require(pool.idleProcessIDs.first)
        var chunks = 0
        let error = #expect(throws: WorkerError.self) {
            try pool.synthesize(WorkerPoolTests.request(WorkerPoolTests.longText)) { _ in
                chunks += 1
                if chunks == 1 { kill(pid, SIGKILL) }
            }
        }
        #expect(chunks >= 1)
        // So a server that has sent nothing of the reply yet can make it again.
        #expect(error?.workerDied == true, "\(String(describing: error))")
        #expect(try WorkerPoolTests.matches(WorkerPoolTests.reply(pool, WorkerPoolTests.request("Next.")), "Next."))
    }
}
