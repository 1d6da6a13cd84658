import FoundationEssentials
import Glibc
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM set a flag that playback and synthesis poll, so the sound stops
/// within one period and the command cleans up (no half-written file) before exiting 130.
package enum Interrupt {
    private static let flag = Atomic<Bool>(false)

    package static var requested: Bool { flag.load(ordering: .relaxed) }

    package static func install() {
        var action = sigaction()
        // No SA_RESTART: a blocking wait (the playback lock, a device write) returns EINTR at once.
        action.__sigaction_handler.sa_handler = { _ in Interrupt.flag.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have left them blocked (the mask is inherited): Ctrl-C must still arrive.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
