import FoundationEssentials
import Glibc
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM set a flag that playback and synthesis poll, so the sound stops
/// within one period and the command cleans up (no half-written file); `exit` then ends the
/// process by that signal, as a shell expects of a program it interrupted.
package enum Interrupt {
    /// The first signal that arrived, 0 before any.
    private static let received = Atomic<Int32>(0)

    package static var requested: Bool { received.load(ordering: .relaxed) != 0 }

    package static func install() {
        // Made now: its first use runs a one-time initialiser, which a signal handler must not.
        _ = received.load(ordering: .relaxed)
        var action = sigaction()
        // No SA_RESTART: a blocking wait (the playback lock, a device write) returns EINTR at once.
        action.__sigaction_handler.sa_handler = { signal in
            _ = Interrupt.received.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        }
        sigemptyset(&action.sa_mask)
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM] {
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            // A shell starts a script's `speak &` with SIGINT ignored: the terminal's Ctrl-C is
            // meant for the job in the foreground, not for it.
            let handler = previous.__sigaction_handler.sa_handler
            if unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            sigaction(signal, &action, nil)
            sigaddset(&signals, signal)
        }
        // A parent may have left them blocked (the mask is inherited): Ctrl-C must still arrive.
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Exits with `code`. Interrupted (130) by a signal, the process dies by that signal instead,
    /// so a shell sees it (`while speak …; do` stops at Ctrl-C; SIGTERM reads as 143).
    package static func exit(_ code: Int32) -> Never {
        let signal = received.load(ordering: .relaxed)
        if code == ExitCode.interrupted.rawValue, signal != 0 {
            fflush(nil)
            Glibc.signal(signal, SIG_DFL)
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, signal)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            raise(signal)
        }
        Glibc.exit(code)
    }
}
