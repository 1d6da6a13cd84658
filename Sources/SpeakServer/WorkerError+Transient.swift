import SpeakKit

/// A reply whose worker process died before any of it was sent is made again, on another worker.
extension WorkerError: TransientError {
    public var isTransient: Bool { workerDied }
}
