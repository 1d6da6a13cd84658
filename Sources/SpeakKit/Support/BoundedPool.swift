/// At most `capacity` items of a costly kind (a decoder, a model's state), each used by one caller
/// at a time: made on first need, then reused (unless retired), and a caller waits while all are
/// out. A failed make gives its place back.
/// `@unchecked`: `condition` guards the state below, and a caller must wait on it for a free item,
/// which `Mutex` cannot do.
public final class BoundedPool<Item, Failure: Error>: @unchecked Sendable {
    /// An item out of the pool, and how many were out with it, itself included, when it was taken.
    public struct Lease {
        public let item: Item
        public let concurrent: Int
    }

    public let capacity: Int
    private let make: () throws(Failure) -> Item
    private let discard: (Item) -> Void
    private let condition = ThreadCondition()
    private var idle: [Item] = []
    private var made = 0
    private var busy = 0

    /// `discard` frees an idle item when the pool goes.
    public init(capacity: Int, make: @escaping () throws(Failure) -> Item, discard: @escaping (Item) -> Void = { _ in })
    {
        self.capacity = max(1, capacity)
        self.make = make
        self.discard = discard
    }

    deinit { idle.forEach(discard) }

    public func acquire() throws(Failure) -> Lease {
        condition.lock()
        while idle.isEmpty && made >= capacity { condition.wait() }
        busy += 1
        if let item = idle.popLast() {
            defer { condition.unlock() }
            return Lease(item: item, concurrent: busy)
        }
        made += 1
        let concurrent = busy
        condition.unlock()
        do {
            return Lease(item: try make(), concurrent: concurrent)
        } catch {
            condition.withLock {
                made -= 1
                busy -= 1
            }
            condition.signal()
            throw error
        }
    }

    public func release(_ lease: Lease) {
        condition.withLock {
            idle.append(lease.item)
            busy -= 1
        }
        condition.signal()
    }

    /// Frees the leased item instead of giving it back (its place is free for a new one).
    public func retire(_ lease: Lease) {
        discard(lease.item)
        condition.withLock {
            made -= 1
            busy -= 1
        }
        condition.signal()
    }

    /// Runs `body` with an item of the pool, given back after.
    public func withItem<Result>(_ body: (Item) throws -> Result) throws -> Result {
        let lease = try acquire()
        defer { release(lease) }
        return try body(lease.item)
    }

    /// Items made so far (at most ``capacity``).
    public var itemsMade: Int { condition.withLock { made } }

    /// Items out right now.
    public var itemsBusy: Int { condition.withLock { busy } }
}
