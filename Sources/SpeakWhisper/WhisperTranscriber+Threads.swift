import Foundation
import SpeakKit

/// How many threads a call decodes with, from the cores and the work already running on them.
extension WhisperTranscriber {
    /// The threads one call decodes with: the cores shared among the calls running, less the cores
    /// other work occupies at this moment (`othersRunning`: runnable tasks besides the caller, the
    /// kernel's count that /proc/stat and /proc/loadavg both show, ``RunnableTasks``), at least
    /// one. ggml's threads meet at a spinning barrier after every graph node, so a thread that has
    /// to share its core makes the others burn their time: measured on 2 loaded cores, one thread
    /// transcribed 4–5× faster than two. The 1-minute load average used before
    /// lags by up to a minute: with the other core busy it still chose two threads, with it free
    /// again one. Benchmarks/transcription.py, both builds side by side at load 2.2 (median): warm
    /// base 0.64×, tiny.en 0.71× the time of the load-average rule, the same texts. A single look
    /// at /proc/stat lost to it at load 1.7 (1.18× base): passing tasks cost a thread, hence
    /// ``othersRunningSteadily()``. Without that count, the load average decides.
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
