import Foundation
import SpeakKit

/// How many threads a call decodes with, from the cores and the work already running on them.
extension WhisperTranscriber {
    /// The threads one call decodes with: the cores shared among the calls running, less the cores
    /// other work occupies at this moment (`othersRunning`: runnable tasks besides the caller, the
    /// kernel's count that /proc/stat and /proc/loadavg both show, ``RunnableTasks``), at least
    /// one. ggml's threads meet at a spinning barrier after every graph node, so one thread that has
    /// to share its core stalls all the others: fewer threads on free cores beat more on busy ones.
    /// The count is taken now rather than from the load average, which lags by up to a minute and
    /// would pick threads for the load that was; ``othersRunningSteadily()`` keeps a task that only
    /// passes through from costing a thread. Without that count, the load average decides.
    static func threads(cores: Int, concurrentCalls: Int, othersRunning: Int?, loadAverage: Double) -> Int {
        let shared = max(1, cores / max(1, concurrentCalls))
        guard let othersRunning else { return loadAverage > Double(cores) ? 1 : shared }
        return max(1, min(shared, cores - othersRunning))
    }

    /// Runnable tasks besides the caller that stay runnable: the fewest of three looks 2 ms apart,
    /// so that a task that only passes through (an HTTP thread, a shell) does not cost a thread.
    static func othersRunningSteadily() -> Int? {
        var fewest: Int?
        for look in 0..<3 {
            if look > 0 { usleep(2000) }
            guard let count = RunnableTasks.othersRunning() else { return nil }
            fewest = min(fewest ?? count, count)
        }
        return fewest
    }
}
