import Dispatch
import Foundation
import SpeakKit
import Testing

@Suite("LockedCondition")
struct LockedConditionTests {
    struct Door {
        var open = false
        /// How many times a waiter has looked at the door, each time under the lock.
        var looks = 0
    }

    @Test("a change wakes every thread waiting on the value, and each runs its body with the value it waited for")
    func changeWakesEveryWaiter() {
        let door = LockedCondition(Door())
        let seen = Locked<[Bool]>([])
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                let open = door.wait(
                    until: { door in
                        door.looks += 1
                        return door.open
                    }, then: { $0.open })
                seen.withLock { $0.append(open) }
                done.leave()
            }
        }
        // A waiter that has looked once and found the door shut holds the lock until it waits, so
        // once both have looked, both are waiting: the change below must wake them, not be seen.
        while door.withLock({ $0.looks }) < 2 { sched_yield() }
        door.change { $0.open = true }
        #expect(done.wait(timeout: .now() + 10) == .success, "a waiter was not woken")
        #expect(seen.withLock { $0 } == [true, true])
    }

    @Test("a wait with a deadline that has passed says whether the value is ready, without changing it")
    func deadline() {
        let count = LockedCondition(1)
        #expect(!count.wait(until: { $0 > 1 }, deadline: Date()))
        #expect(count.wait(until: { $0 == 1 }, deadline: .distantPast))
        #expect(count.withLock { $0 } == 1)
    }
}
