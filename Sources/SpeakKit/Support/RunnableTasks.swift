import Glibc

/// The tasks the kernel has runnable at this moment: how many cores other work occupies, for
/// callers that size their threads by it (`speak TEXT`'s start-up, whisper's decoding threads).
package enum RunnableTasks {
    /// Runnable tasks besides the caller, from /proc/loadavg (one small read, cheap enough for
    /// `speak TEXT` to ask at start-up); `nil` where it cannot be read.
    package static func othersRunning() -> Int? {
        guard let line = try? FileSystem.contents(of: "/proc/loadavg", maximumBytes: 256) else { return nil }
        return othersRunning(loadAverage: line)
    }

    /// `loadAverage` is /proc/loadavg's line (`0.52 0.58 0.59 2/181 12345`): its fourth field
    /// counts the runnable tasks, the reading thread among them (the kernel's `nr_running`, as
    /// /proc/stat's `procs_running`).
    package static func othersRunning(loadAverage: some Collection<UInt8>) -> Int? {
        let fields = loadAverage.split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let slash = fields[3].firstIndex(of: UInt8(ascii: "/")),
            let running = Int(String(decoding: fields[3][..<slash], as: UTF8.self))
        else { return nil }
        return max(0, running - 1)
    }
}
