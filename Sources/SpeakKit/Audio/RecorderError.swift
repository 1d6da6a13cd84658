/// Why a recording failed or produced nothing. The cases are stable (the CLI maps them to exit
/// codes and the server to responses); each `description` is one line.
public enum RecorderError: Error, Equatable, CustomStringConvertible, Sendable {
    /// No capture device by that name, or it cannot be opened (no sound server, no such card).
    case noCaptureDevice(String)
    /// The device exists but this user may not open it (EACCES or EPERM).
    case permissionDenied(String)
    /// Another program holds the device (EBUSY).
    case deviceBusy(String)
    /// Shorter than `Recorder.minimumDuration`: nothing worth transcribing.
    case tooShort
    /// Until-silence recording heard no speech before its timeout.
    case noSpeech
    /// `cancel()` was called; the file is deleted.
    case cancelled
    /// Reading the device or writing the spool file failed.
    case recordingFailed(String)

    public var description: String {
        switch self {
        case .noCaptureDevice(let name): "no capture device '\(name)' (list them with arecord -L)"
        case .permissionDenied(let name):
            "permission denied opening capture device '\(name)' (is this user in the audio group?)"
        case .deviceBusy(let name): "capture device '\(name)' is busy: another program is using it"
        case .tooShort: "recording too short (under \(Recorder.minimumDuration) s)"
        case .noSpeech: "no speech heard"
        case .cancelled: "recording cancelled"
        case .recordingFailed(let message): "recording failed: \(message)"
        }
    }
}
