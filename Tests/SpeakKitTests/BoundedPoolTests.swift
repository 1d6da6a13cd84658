import Foundation
import SpeakKit
import Testing

/// The one pool type for costly things used one caller at a time (pocketsphinx decoders, Whisper's
/// decoding states).
@Suite("BoundedPool")
struct BoundedPoolTests {
    struct Refused: Error {}

    @Test("eight callers on a pool of two: two made, never more than two out, each reused")
    func bounded() throws {
        let made = Locked(0)
        let pool = BoundedPool<Int, Never>(capacity: 2) {
            made.withLock {
                $0 += 1
                return $0
            }
        }
        let mostOut = Locked(0)
        let bothOut = DispatchSemaphore(value: 0)
        let uses = Locked<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let lease = pool.acquire()
            mostOut.withLock { $0 = max($0, lease.concurrent) }
            uses.withLock { $0[lease.item, default: 0] += 1 }
            // The first two callers hold on until both are out, so the pool is seen full.
            if index < 2, lease.concurrent == 1 { _ = bothOut.wait(timeout: .now() + 5) }
            if lease.concurrent == 2 { bothOut.signal() }
            pool.release(lease)
        }
        #expect(made.withLock { $0 } == 2 && pool.itemsMade == 2)
        #expect(mostOut.withLock { $0 } == 2)
        #expect(uses.withLock { $0.values.reduce(0, +) } == 8)
        #expect(pool.itemsBusy == 0)
    }

    @Test("a retired item is discarded and its place freed: the next caller gets a new one")
    func retire() throws {
        let made = Locked(0)
        let discarded = Locked<[Int]>([])
        let pool = BoundedPool<Int, Never>(
            capacity: 1,
            make: {
                made.withLock {
                    $0 += 1
                    return $0
                }
            }, discard: { item in discarded.withLock { $0.append(item) } })
        let first = pool.acquire()
        pool.retire(first)
        let second = pool.acquire()
        #expect(first.item == 1 && second.item == 2)
        #expect(discarded.withLock { $0 } == [1])
        #expect(pool.itemsMade == 1 && pool.itemsBusy == 1)
        pool.release(second)
        #expect(pool.acquire().item == 2)
    }

    @Test("a failed make gives its place back: the next caller makes one")
    func failedMake() throws {
        let attempts = Locked(0)
        let pool = BoundedPool<String, Refused>(capacity: 1) { () throws(Refused) -> String in
            let attempt = attempts.withLock {
                $0 += 1
                return $0
            }
            if attempt == 1 { throw Refused() }
            return "decoder \(attempt)"
        }
        #expect(throws: Refused.self) { try pool.acquire() }
        #expect(pool.itemsMade == 0 && pool.itemsBusy == 0)
        let lease = try pool.acquire()
        #expect(lease.item == "decoder 2" && lease.concurrent == 1)
        pool.release(lease)
    }

    @Test("idle items are freed when the pool goes")
    func discards() throws {
        let freed = Locked<[Int]>([])
        do {
            let pool = BoundedPool<Int, Never>(
                capacity: 3, make: { 7 }, discard: { item in freed.withLock { $0.append(item) } })
            pool.release(pool.acquire())
        }
        #expect(freed.withLock { $0 } == [7])
    }
}
