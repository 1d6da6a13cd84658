internal import CALSA
import FoundationEssentials
import Glibc

/// An ALSA capture device, by the name `arecord -L` lists (or as a given configuration defines it),
/// opened for mono 16-bit PCM.
final class CaptureDevice {
    let name: String
    let sampleRate: Int
    private let pcm: OpaquePointer

    /// `snd_pcm_open` for capture, without waiting: a device held by another program fails at once
    /// with `isBusy`. Then `snd_pcm_set_params` for S16_LE mono at `sampleRate`, 200 ms of buffer
    /// in periods of about 50 ms. A capture buffer adds no delay (a read returns once a period has
    /// arrived), so it is sized to ride out a busy machine without overruns; the period keeps the
    /// live level within about 50 ms.
    ///
    /// With `configuration` (ALSA configuration text, `.asoundrc` syntax), `name` is looked up in it
    /// instead of in the system's configuration.
    init(name: String, sampleRate: Int, configuration: String? = nil) throws(ALSAError) {
        let pcm = try openPCM(
            name, SND_PCM_STREAM_CAPTURE, sampleRate: sampleRate, bufferMicroseconds: 200_000,
            configuration: configuration)
        self.pcm = pcm
        self.name = name
        self.sampleRate = sampleRate
        do throws(ALSAError) {
            try ALSAError.check(snd_pcm_start(pcm), "snd_pcm_start", device: name)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    deinit { snd_pcm_close(pcm) }

    /// `snd_pcm_readi`: blocks until `buffer` is full. An overrun (-EPIPE), a suspend (-ESTRPIPE) or a
    /// signal (-EINTR) is recovered and reading goes on (an overrun loses what the device dropped).
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(ALSAError) {
        var offset = 0
        while offset < buffer.count {
            let count = snd_pcm_readi(pcm, buffer.baseAddress! + offset, snd_pcm_uframes_t(buffer.count - offset))
            if count >= 0 {
                offset += count
            } else {
                try ALSAError.check(snd_pcm_recover(pcm, Int32(count), 1), "snd_pcm_readi", device: name)
                // After recovering from an overrun, a capture stream must be started again.
                if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED { snd_pcm_start(pcm) }
            }
        }
    }

    /// Stops capturing, dropping what is buffered.
    func stop() { snd_pcm_drop(pcm) }
}
