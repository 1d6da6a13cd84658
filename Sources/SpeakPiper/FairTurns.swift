import SpeakKit

/// Who runs a model next when more callers want it than it has slots: the caller that has had
/// the fewest turns (a short request's first piece goes before a long request's tenth), then the
/// one that asked first. A long request gives up its slot after every piece, so a short one
/// waits for at most one piece, never for whole long requests.
final class FairTurns: @unchecked Sendable {
    /// One caller waiting: `turn` is how many turns it has had, `ticket` when it asked.
    struct Waiter: Comparable {
        var turn: Int
        var ticket: UInt64
        static func < (left: Waiter, right: Waiter) -> Bool { (left.turn, left.ticket) < (right.turn, right.ticket) }
    }

    /// Guards everything below.
    private let condition = ThreadCondition()
    private var free: Int
    /// How many callers may run at once.
    let slots: Int
    private var waiting: [Waiter] = []
    private var nextTicket: UInt64 = 0
    /// The latest asks and grants, in order: the tests' window into the order.
    private var events: [Event] = []
    static let historyLimit = 512

    enum Event: Equatable {
        case asked(Waiter)
        case granted(Waiter)
    }

    init(slots: Int) {
        self.slots = max(slots, 1)
        free = self.slots
    }

    /// Runs `body` in a slot, once it is this caller's turn; `turn` is how many it has had before.
    func run<Result, Failure: Error>(turn: Int, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        acquire(turn: turn)
        defer { release() }
        return try body()
    }

    /// Whether no caller runs or waits: the model has the machine's cores to itself.
    var isIdle: Bool { condition.withLock { free == slots && waiting.isEmpty } }

    /// The latest ``historyLimit`` asks and grants, oldest first.
    var history: [Event] { condition.withLock { events } }

    private func acquire(turn: Int) {
        condition.withLock {
            let me = Waiter(turn: turn, ticket: nextTicket)
            nextTicket += 1
            waiting.append(me)
            record(.asked(me))
            while free == 0 || waiting.min() != me { condition.wait() }
            waiting.removeAll { $0 == me }
            free -= 1
            record(.granted(me))
            // Another slot may be free for the next in line.
            condition.broadcast()
        }
    }

    private func record(_ event: Event) {
        if events.count >= Self.historyLimit { events.removeFirst(events.count - Self.historyLimit + 1) }
        events.append(event)
    }

    private func release() {
        condition.withLock {
            free += 1
            condition.broadcast()
        }
    }
}
