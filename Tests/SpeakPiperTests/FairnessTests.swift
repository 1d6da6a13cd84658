import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// Requests for one model share it piece by piece, on the real joe model.
@Suite("Piper fairness", .serialized)
struct FairnessTests {
    struct Stop: Error {}

    /// One long request on its own thread, until it is told to stop.
    final class LongRequest: Sendable {
        struct Progress {
            var chunks = 0
            var finished = false
            var stop = false
        }
        let progress = LockedCondition(Progress())

        init(digits seed: Int) {
            let text = String((0..<800).map { Character(String(($0 * seed + $0 / 7) % 10)) })
            Thread.detachNewThread { [progress] in
                try? Joe.synthesizer.synthesize(text, options: SpeechOptions(voice: Joe.voice), onProgress: nil) { _ in
                    try progress.change { progress in
                        progress.chunks += 1
                        if progress.stop { throw Stop() }
                    }
                }
                progress.change { $0.finished = true }
            }
        }

        func waitForFirstChunk() { progress.wait(until: { $0.chunks > 0 || $0.finished }) }

        func stopAndWait() {
            progress.change { $0.stop = true }
            progress.wait(until: { $0.finished })
        }
    }

    @Test("a short request is served at the next free slot while long requests go on, not after their pieces")
    func shortAmongLong() throws {
        let model = try Joe.synthesizer.model(for: Joe.voice)
        // More long requests than slots: some of them are always waiting for a turn.
        let longs = (0..<model.turns.slots + 2).map { LongRequest(digits: 3 + 2 * $0) }
        for long in longs { long.waitForFirstChunk() }
        let start = model.turns.history.count
        let chunks = try Joe.chunks("Done.")
        let inProgress = longs.filter { long in long.progress.withLock { !$0.finished } }.count
        for long in longs { long.stopAndWait() }

        #expect(!chunks.isEmpty)
        #expect(inProgress == longs.count, "the long requests were still speaking when the short one was done")
        // Every long request is past its first turn: the first turn 0 asked from here is the short one.
        let history = Array(model.turns.history[start...])
        let asked = try #require(history.firstIndex { if case .asked(let who) = $0 { who.turn == 0 } else { false } })
        guard case .asked(let short) = history[asked] else { return }
        let granted = try #require(history.firstIndex(of: .granted(short)))
        let before = history[asked..<granted].filter { if case .granted(let who) = $0 { who.turn > 0 } else { false } }
        #expect(before.isEmpty, "long requests' pieces went first: \(before)")
    }

    /// A door a test thread waits at until the test opens it.
    final class Gate: Sendable {
        private let open = LockedCondition(false)

        func wait() { open.wait(until: { $0 }) }

        func openIt() { open.change { $0 = true } }
    }

    @Test("turns go to the caller with the fewest, then to the first to ask")
    func order() throws {
        let turns = FairTurns(slots: 1)
        let gate = Gate()
        let group = DispatchGroup()
        func ask(_ turn: Int, _ body: @escaping @Sendable () -> Void = {}) {
            let asked = turns.history.count
            group.enter()
            Thread.detachNewThread {
                turns.run(turn: turn, body)
                group.leave()
            }
            // Polls the queue's own record, not a clock: the next caller asks only after this one has.
            while turns.history.count == asked { sched_yield() }
        }
        // The slot is held while callers with 3, 1, 0 and 1 turns behind them ask.
        ask(5) { gate.wait() }
        for turn in [3, 1, 0, 1] { ask(turn) }
        gate.openIt()
        group.wait()
        let granted = turns.history.compactMap { if case .granted(let who) = $0 { who } else { nil } }
        #expect(granted.map(\.turn) == [5, 0, 1, 1, 3])
        #expect(granted.map(\.ticket) == [0, 3, 2, 4, 1], "of two callers with one turn, the first to ask goes first")
    }
}
