import FoundationEssentials
import Glibc

/// Why playback failed, in terms a front end can act on, as ``RecorderError`` is for recording.
/// The CLI maps the cases to exit codes, the server to responses; each `description` is one line.
public enum PlaybackError: Error, Equatable, CustomStringConvertible, Sendable {
    /// No playback device by that name, or it cannot be opened (no sound server, no such card).
    case noPlaybackDevice(String, reason: String)
    /// The device exists but this user may not open it (EACCES or EPERM).
    case permissionDenied(String)
    /// Another program holds the device (EBUSY).
    case deviceBusy(String, reason: String)
    /// Writing to or draining the device failed after it opened.
    case playbackFailed(String, reason: String)

    public var description: String {
        switch self {
        case .noPlaybackDevice(let name, let reason): "no playback device '\(name)' (\(reason))"
        case .permissionDenied(let name):
            "permission denied opening playback device '\(name)' (is this user in the audio group?)"
        case .deviceBusy(let name, let reason): "playback device '\(name)' is in use by another program (\(reason))"
        case .playbackFailed(let name, let reason): "playback on '\(name)' failed: \(reason)"
        }
    }
}

extension ALSAError {
    /// What this failure means for playback: opening the device, or playing on it.
    var playbackError: PlaybackError {
        if isBusy { return .deviceBusy(device, reason: message) }
        if code == -EACCES || code == -EPERM { return .permissionDenied(device) }
        if function == "snd_pcm_open" || function == "snd_pcm_set_params" || function == "snd_pcm_nonblock" {
            return .noPlaybackDevice(device, reason: message)
        }
        return .playbackFailed(device, reason: "\(function): \(message)")
    }
}
