internal import CALSA
import FoundationEssentials
import Glibc

/// A failure reported by ALSA, with `snd_strerror`'s message.
/// It names the device too, so it keeps its own `check`.
public struct ALSAError: CLibraryError {
    public static let library = "ALSA"
    /// The negative errno ALSA returned.
    public let code: Int32
    public let function: String
    public let device: String

    public var message: String { String(cString: snd_strerror(code)) }
    public var description: String { "ALSA: \(function) on '\(device)' failed: \(message)" }

    /// The device is held by another program.
    public var isBusy: Bool { code == -EBUSY || code == -EAGAIN }

    /// `true` when the code is a failure; negative codes become `ALSAError`.
    @discardableResult
    static func check<Code: BinaryInteger>(_ code: Code, _ function: String, device: String) throws(ALSAError) -> Code {
        guard code < 0 else { return code }
        throw ALSAError(code: Int32(code), function: function, device: device)
    }
}

/// Opens an ALSA PCM for mono S16_LE at `sampleRate` with `bufferMicroseconds` of buffer, without
/// waiting: a device held by another program fails at once with `isBusy`, then I/O blocks.
/// Shared by `PlaybackDevice` and `CaptureDevice`.
///
/// With `configuration` (ALSA configuration text), `name` is looked up in it instead of the
/// system's configuration (`snd_config_load_string`, `snd_pcm_open_lconf`). ALSA copies what it
/// needs of it at the open, so the parsed tree is freed right after.
func openPCM(
    _ name: String, _ stream: snd_pcm_stream_t, sampleRate: Int, bufferMicroseconds: UInt32,
    configuration: String? = nil
) throws(ALSAError) -> OpaquePointer {
    speak_alsa_silence_errors()
    var pcm: OpaquePointer?
    if let configuration {
        var tree: OpaquePointer?
        try ALSAError.check(snd_config_load_string(&tree, configuration, 0), "snd_config_load_string", device: name)
        defer { snd_config_delete(tree) }
        try ALSAError.check(
            snd_pcm_open_lconf(&pcm, name, stream, SND_PCM_NONBLOCK, tree), "snd_pcm_open", device: name)
    } else {
        try ALSAError.check(snd_pcm_open(&pcm, name, stream, SND_PCM_NONBLOCK), "snd_pcm_open", device: name)
    }
    guard let pcm else { throw ALSAError(code: -ENODEV, function: "snd_pcm_open", device: name) }
    do throws(ALSAError) {
        try ALSAError.check(snd_pcm_nonblock(pcm, 0), "snd_pcm_nonblock", device: name)
        try ALSAError.check(
            snd_pcm_set_params(
                pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1,
                bufferMicroseconds),
            "snd_pcm_set_params", device: name)
    } catch {
        snd_pcm_close(pcm)
        throw error
    }
    return pcm
}
