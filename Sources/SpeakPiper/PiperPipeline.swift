import SpeakKit

/// A bounded hand-over from the synthesising thread to the caller's: at most `capacity` whole
/// sentences wait to be taken; the windows of a sentence that is streamed come as they are made.
/// Its state is guarded by `condition`'s lock.
final class PiperPipeline: @unchecked Sendable {
    /// A sentence, or a window of one.
    struct Audio: Sendable {
        var samples: [Float]
        /// What to scale by: `nil` for the sentence's own peak (a whole sentence).
        var peak: Float?
        /// The window before's `peak`, which the scale moves from at this window's start.
        var rampFrom: Float? = nil
        /// Whether this starts, and ends, its sentence.
        var starts: Bool
        var ends: Bool
    }

    private let condition = ThreadCondition()
    private var queue: [Result<Audio, PiperError>] = []
    private var finished = false
    private var isCancelled = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var cancelled: Bool { condition.withLock { isCancelled } }

    /// Whole sentences waiting (a failure counts as one).
    private var sentences: Int { queue.count { (try? $0.get().ends) ?? true } }

    /// Waits while `capacity` sentences are waiting to be taken (or until cancelled); a window
    /// that does not end its sentence never waits.
    func put(_ item: Result<Audio, PiperError>) {
        condition.withLock {
            let counts = (try? item.get().ends) ?? true
            while counts, sentences >= capacity, !isCancelled { condition.wait() }
            if !isCancelled { queue.append(item) }
            condition.broadcast()
        }
    }

    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// The next sentence or window, or `nil` once the producer has finished and all were taken.
    func take() -> Result<Audio, PiperError>? {
        condition.withLock {
            while queue.isEmpty, !finished { condition.wait() }
            defer { condition.broadcast() }
            return queue.isEmpty ? nil : queue.removeFirst()
        }
    }

    /// Stops the producer after its current sentence and waits until it has.
    func cancelAndWait() {
        condition.withLock {
            isCancelled = true
            condition.broadcast()
            while !finished { condition.wait() }
        }
    }
}
