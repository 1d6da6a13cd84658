import SpeakKit

/// Who runs a model next when more callers want it than it has slots: the caller that has had
/// the fewest turns (a short request's first piece goes before a long request's tenth), then the
/// one that asked first. A long request gives up its slot after every piece, so a short one
/// waits for at most one piece, never for whole long requests.
final class FairTurns: Sendable {
    /// One caller waiting: `turn` is how many turns it has had, `ticket` when it asked.
    struct Waiter: Comparable {
        var turn: Int
        var ticket: UInt64
        static func < (left: Waiter, right: Waiter) -> Bool { (left.turn, left.ticket) < (right.turn, right.ticket) }
    }

    private struct State {
        var free: Int
        var waiting: [Waiter] = []
        var nextTicket: UInt64 = 0
        /// The latest asks and grants, in order: the tests' window into the order.
        var events: [Event] = []

        mutating func record(_ event: Event) {
            if events.count >= FairTurns.historyLimit { events.removeFirst(events.count - FairTurns.historyLimit + 1) }
            events.append(event)
        }
    }

    private let state: Monitor<State>
    /// How many callers may run at once.
    let slots: Int
    static let historyLimit = 512

    enum Event: Equatable {
        case asked(Waiter)
        case granted(Waiter)
    }

    init(slots: Int) {
        self.slots = max(slots, 1)
        state = Monitor(State(free: self.slots))
    }

    /// Runs `body` in a slot, once it is this caller's turn; `turn` is how many it has had before.
    func run<Result, Failure: Error>(turn: Int, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        acquire(turn: turn)
        defer { release() }
        return try body()
    }

    /// Whether no caller runs or waits: the model has the machine's cores to itself.
    var isIdle: Bool { state.withLock { $0.free == slots && $0.waiting.isEmpty } }

    /// The latest ``historyLimit`` asks and grants, oldest first.
    var history: [Event] { state.withLock { $0.events } }

    private func acquire(turn: Int) {
        state.withCondition { held in
            let me = Waiter(turn: turn, ticket: held.state.nextTicket)
            held.state.nextTicket += 1
            held.state.waiting.append(me)
            held.state.record(.asked(me))
            while held.state.free == 0 || held.state.waiting.min() != me { held.wait() }
            held.state.waiting.removeAll { $0 == me }
            held.state.free -= 1
            held.state.record(.granted(me))
            // Another slot may be free for the next in line.
            held.broadcast()
        }
    }

    private func release() {
        state.withLock { $0.free += 1 }
        state.broadcast()
    }
}
