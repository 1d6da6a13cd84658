internal import CALSA
import Dispatch
import FoundationEssentials
import Glibc

/// An ALSA playback device, by the name `aplay -L` lists, opened for mono 16-bit PCM.
final class PlaybackDevice {
    let name: String
    let sampleRate: Int
    private let pcm: OpaquePointer

    /// Opens without waiting: a device held by another program fails at once with `isBusy`.
    init(name: String, sampleRate: Int) throws(ALSAError) {
        // 100 ms of buffer: enough to ride out scheduling hiccups, short enough to stop promptly.
        pcm = try openPCM(name, SND_PCM_STREAM_PLAYBACK, sampleRate: sampleRate, bufferMicroseconds: 100_000)
        self.name = name
        self.sampleRate = sampleRate
        // Writes never block: a blocking snd_pcm_writei waits in a poll that alsa-lib restarts on
        // EINTR, so Ctrl-C could not reach a device that consumes slowly (a 1 Hz stream: 12 minutes).
        // Non-blocking, `snd_pcm_close` also drops what is left instead of draining it.
        if snd_pcm_nonblock(pcm, 1) < 0 {
            snd_pcm_close(pcm)
            throw ALSAError(code: -EIO, function: "snd_pcm_nonblock", device: name)
        }
    }

    deinit { snd_pcm_close(pcm) }

    /// The longest wait for room in the device's buffer before `shouldStop` is asked again.
    static let pollMilliseconds: Int32 = 10

    /// Writes every sample, recovering from underruns. Waits for room at most 10 ms at a time and
    /// checks `shouldStop` in between, so a stop request is seen within 10 ms however slowly the
    /// device plays.
    func write(_ samples: UnsafeBufferPointer<Int16>, shouldStop: () -> Bool) throws {
        var offset = 0
        while offset < samples.count {
            if shouldStop() {
                snd_pcm_drop(pcm)
                throw PlaybackInterrupted()
            }
            let written = snd_pcm_writei(pcm, samples.baseAddress! + offset, snd_pcm_uframes_t(samples.count - offset))
            if written >= 0 {
                offset += written
            } else if written == -EAGAIN {
                // The buffer is full: wait for room (an error here shows again on the next write).
                _ = snd_pcm_wait(pcm, Self.pollMilliseconds)
            } else {
                // Underrun (-EPIPE), suspend (-ESTRPIPE) and signals (-EINTR) recover; the rest is fatal.
                try ALSAError.check(snd_pcm_recover(pcm, Int32(written), 1), "snd_pcm_writei", device: name)
            }
        }
    }

    /// Returns once the device has played everything written, or throws `PlaybackInterrupted`
    /// within about 10 ms of `shouldStop` turning true (and silences the device).
    func drain(shouldStop: () -> Bool) throws {
        // Fewer samples than the start threshold were written: start the device by hand.
        if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED { snd_pcm_start(pcm) }
        var lastDelay = snd_pcm_sframes_t.max
        var lastProgress = ContinuousClock.now
        while snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING {
            if shouldStop() {
                snd_pcm_drop(pcm)
                throw PlaybackInterrupted()
            }
            var delay: snd_pcm_sframes_t = 0
            guard snd_pcm_delay(pcm, &delay) == 0, delay > 0 else { break }
            // A device that stops consuming (its sound server gone) must not hold us forever.
            if delay < lastDelay {
                (lastDelay, lastProgress) = (delay, .now)
            } else if ContinuousClock.now - lastProgress > .seconds(2) {
                snd_pcm_drop(pcm)
                throw ALSAError(code: -EIO, function: "snd_pcm_drain", device: name)
            }
            usleep(useconds_t(min(10_000, delay * 1_000_000 / sampleRate + 1)))
        }
        // What remains is at most one sleep's worth: drain it blocking, then back to non-blocking.
        snd_pcm_nonblock(pcm, 0)
        snd_pcm_drain(pcm)
        snd_pcm_nonblock(pcm, 1)
    }

    /// Playback device names and descriptions, as `aplay -L` prints them.
    static func list() -> [(name: String, description: String)] {
        speak_alsa_silence_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func hint(_ entry: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(entry, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var devices: [(String, String)] = []
        var entry = hints
        while let current = entry.pointee {
            if hint(current, "IOID") != "Input", let name = hint(current, "NAME") {
                devices.append((name, hint(current, "DESC") ?? ""))
            }
            entry += 1
        }
        return devices
    }
}

/// Playback was stopped on request (Ctrl-C) before it finished.
public struct PlaybackInterrupted: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "interrupted" }
}

/// A `PlaybackDevice` being opened on another thread.
final class OpeningDevice: Sendable {
    let sampleRate: Int
    private let opened = Locked<Result<PlaybackDevice, ALSAError>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, sampleRate: Int) {
        self.sampleRate = sampleRate
        startDetachedThread { [opened, finished] in
            opened.withLock {
                $0 = Result { () throws(ALSAError) in try PlaybackDevice(name: name, sampleRate: sampleRate) }
            }
            finished.signal()
        }
    }

    /// Waits until the device is open. Returns it if it opened at `sampleRate`, `nil` (and closes
    /// it) if the audio comes at another rate; throws why it did not open. Later calls return `nil`.
    func device(at sampleRate: Int) throws(ALSAError) -> PlaybackDevice? {
        finished.wait()
        finished.signal()  // for any later call
        let result = opened.withLock { $0.take() }
        guard sampleRate == self.sampleRate, let result else { return nil }
        return try result.get()
    }
}
