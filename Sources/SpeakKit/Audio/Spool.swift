import FoundationEssentials
import Glibc

/// The directory where recordings wait for transcription, so none is lost to a crash, a kill or a
/// failed upload: the recorder writes each one here as it records, and it stays `pending` until
/// `markDone`.
///
/// A recording still being written is held with an `flock`, which the kernel releases when its
/// recorder exits in any way; `pending` leaves those out, so a file left by a crash becomes pending.
public struct Spool: Sendable, Equatable {
    public let directory: URL

    /// `$XDG_DATA_HOME/speak/spool`, or `~/.local/share/speak/spool`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return data.appendingPathComponent("speak/spool")
    }

    public init(directory: URL = Spool.defaultDirectory) {
        self.directory = directory
    }

    /// Where `markDone(_:keep: true)` moves recordings.
    public var doneDirectory: URL { directory.appendingPathComponent("done") }

    /// Recordings waiting for transcription, oldest first. Empty when the directory does not exist.
    public var pending: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        // Names start with the UTC time to the millisecond, so name order is age order.
        return names.filter { $0.hasSuffix(".wav") }.sorted()
            .map { directory.appendingPathComponent($0) }
            .filter { !Self.isBeingWritten($0) }
    }

    /// Deletes a transcribed recording, or with `keep` moves it to `doneDirectory`.
    public func markDone(_ url: URL, keep: Bool) throws {
        if keep {
            try FileManager.default.createDirectory(at: doneDirectory, withIntermediateDirectories: true)
            // rename(2): a kept copy of the same name (a recording kept once, then retried) is
            // replaced, where moving refused and left the recording pending, to be printed again.
            let kept = doneDirectory.appendingPathComponent(url.lastPathComponent)
            guard rename(url.path, kept.path) == 0 else { throw SystemCallError("rename") }
        } else {
            try FileManager.default.removeItem(at: url)
        }
    }

    /// A fresh file name for a new recording, creating the directory if needed. Names start with
    /// the UTC time to the microsecond, strictly increasing within a process, so that `pending`'s
    /// name order is the order the recordings were started in, however fast they follow each other.
    func newRecordingURL() throws -> URL {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let now = Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec / 1000)
        let micros = Self.lastStamp.withLock { last in
            last = max(now, last + 1)
            return last
        }
        var parts = tm()
        var seconds = time_t(micros / 1_000_000)
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
        let fraction = String(micros % 1_000_000 + 1_000_000).dropFirst()  // six digits
        let stamp =
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "." + fraction
        return directory.appendingPathComponent("\(stamp)-\(UUID().uuidString.prefix(8).lowercased()).wav")
    }

    /// The last stamp handed out in this process, in microseconds since the epoch.
    private static let lastStamp = Locked<Int64>(0)

    /// Whether a live recorder holds the file's lock.
    private static func isBeingWritten(_ url: URL) -> Bool {
        guard let descriptor = try? SystemCall.retrying("open", { open(url.path, O_RDONLY | O_CLOEXEC) }) else {
            return true
        }
        defer { close(descriptor) }
        return (try? SystemCall.retrying("flock") { flock(descriptor, LOCK_SH | LOCK_NB) }) == nil
    }
}
