/// At most `capacity` items of a costly kind (a decoder, a model's state), each used by one caller
/// at a time: made on first need, then reused (unless retired), and a caller waits while all are
/// out. A failed make gives its place back.
public final class BoundedPool<Item: Sendable, Failure: Error>: Sendable {
    /// An item out of the pool, and how many were out with it, itself included, when it was taken.
    public struct Lease {
        public let item: Item
        public let concurrent: Int
    }

    private struct State: Sendable {
        var idle: [Item] = []
        var made = 0
        var busy = 0
    }

    public let capacity: Int
    private let make: @Sendable () throws(Failure) -> Item
    private let discard: @Sendable (Item) -> Void
    /// A caller waits on it for a free item.
    private let state = Monitor(State())

    /// `discard` frees an idle item when the pool goes.
    public init(
        capacity: Int, make: @escaping @Sendable () throws(Failure) -> Item,
        discard: @escaping @Sendable (Item) -> Void = { _ in }
    ) {
        self.capacity = max(1, capacity)
        self.make = make
        self.discard = discard
    }

    deinit { state.withLock { $0.idle }.forEach(discard) }

    public func acquire() throws(Failure) -> Lease {
        let (item, concurrent) = state.withCondition { held -> (Item?, Int) in
            while held.state.idle.isEmpty && held.state.made >= capacity { held.wait() }
            held.state.busy += 1
            if let item = held.state.idle.popLast() { return (item, held.state.busy) }
            held.state.made += 1
            return (nil, held.state.busy)
        }
        if let item { return Lease(item: item, concurrent: concurrent) }
        do {
            return Lease(item: try make(), concurrent: concurrent)
        } catch {
            state.withLock {
                $0.made -= 1
                $0.busy -= 1
            }
            state.signal()
            throw error
        }
    }

    public func release(_ lease: Lease) {
        state.withLock {
            $0.idle.append(lease.item)
            $0.busy -= 1
        }
        state.signal()
    }

    /// Frees the leased item instead of giving it back (its place is free for a new one).
    public func retire(_ lease: Lease) {
        discard(lease.item)
        state.withLock {
            $0.made -= 1
            $0.busy -= 1
        }
        state.signal()
    }

    /// Runs `body` with an item of the pool, given back after.
    public func withItem<Result>(_ body: (Item) throws -> Result) throws -> Result {
        let lease = try acquire()
        defer { release(lease) }
        return try body(lease.item)
    }

    /// Items made so far (at most ``capacity``).
    public var itemsMade: Int { state.withLock { $0.made } }

    /// Items out right now.
    public var itemsBusy: Int { state.withLock { $0.busy } }
}
