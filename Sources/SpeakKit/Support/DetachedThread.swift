import FoundationEssentials
import Glibc

/// Runs `body` on a new detached POSIX thread. Foundation's `Thread.detachNewThread` sets up its
/// class machinery on first use, which a command that must start as fast as espeak-ng feels.
/// The thread is started, never joined.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
        &thread, nil,
        { box in
            Unmanaged<Box>.fromOpaque(box!).takeRetainedValue().body()
            return nil
        }, box)
    guard started == 0 else {
        // No thread (out of resources): run it here, later rather than never.
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        return
    }
    pthread_detach(thread)
}

private final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
