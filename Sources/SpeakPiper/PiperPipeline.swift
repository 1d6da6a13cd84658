import SpeakKit

/// A bounded hand-over from the synthesising thread to the caller's: at most `capacity` whole
/// sentences wait to be taken; the windows of a sentence that is streamed come as they are made.
final class PiperPipeline: Sendable {
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

    private struct State {
        var queue: [Result<Audio, PiperError>] = []
        var finished = false
        var isCancelled = false

        /// Whole sentences waiting (a failure counts as one).
        var sentences: Int { queue.count { (try? $0.get().ends) ?? true } }
    }

    private let state = Monitor(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var cancelled: Bool { state.withLock { $0.isCancelled } }

    /// Waits while `capacity` sentences are waiting to be taken (or until cancelled); a window
    /// that does not end its sentence never waits.
    func put(_ item: Result<Audio, PiperError>) {
        state.withCondition { held in
            let counts = (try? item.get().ends) ?? true
            while counts, held.state.sentences >= capacity, !held.state.isCancelled { held.wait() }
            if !held.state.isCancelled { held.state.queue.append(item) }
            held.broadcast()
        }
    }

    func finish() {
        state.withLock { $0.finished = true }
        state.broadcast()
    }

    /// The next sentence or window, or `nil` once the producer has finished and all were taken.
    func take() -> Result<Audio, PiperError>? {
        state.withCondition { held in
            while held.state.queue.isEmpty, !held.state.finished { held.wait() }
            defer { held.broadcast() }
            return held.state.queue.isEmpty ? nil : held.state.queue.removeFirst()
        }
    }

    /// Stops the producer after its current sentence and waits until it has.
    func cancelAndWait() {
        state.withCondition { held in
            held.state.isCancelled = true
            held.broadcast()
            while !held.state.finished { held.wait() }
        }
    }
}
