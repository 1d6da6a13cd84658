import FoundationEssentials
import Glibc

/// A machine-wide turn at the speaker: two `speak` processes take turns instead of talking over
/// each other. An `flock` on a file in `$XDG_RUNTIME_DIR` (or `/tmp`), released by the kernel if
/// the holder dies.
struct PlaybackLock: ~Copyable {
    private let descriptor: Int32

    static var defaultPath: String {
        let directory =
            environmentValue("XDG_RUNTIME_DIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return directory + "/speak-playback.lock"
    }

    /// Waits for the turn; `wait: false` fails at once with `PlaybackBusy` if another holds it.
    init(path: String = PlaybackLock.defaultPath, wait: Bool, shouldStop: () -> Bool) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw PlaybackBusy(reason: "cannot open lock \(path): \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            let error = errno
            // A signal (Ctrl-C) interrupts the wait: stop if asked, else keep waiting.
            if error == EINTR && !shouldStop() { continue }
            close(descriptor)
            if error == EINTR { throw PlaybackInterrupted() }
            throw PlaybackBusy(reason: "another speak is playing")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}

/// The speaker is taken: by another `speak` (with `wait: false`) or by another program.
public struct PlaybackBusy: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
