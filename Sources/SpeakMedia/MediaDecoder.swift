internal import CFFmpeg
import Foundation
import SpeakKit

/// Decodes uploads and files in any common audio format to mono 16-bit PCM at one sample rate
/// (16 kHz by default, what speech recognition wants).
///
/// WAV already at the wanted rate is read natively, sample for sample. Everything else (MP3, AAC in
/// M4A/MP4, raw AAC, Opus or Vorbis in WebM/Ogg, FLAC, WAV at other rates or depths) goes through
/// libavformat, libavcodec and libswresample, linked in process: the `ffmpeg` program is never run.
/// MP3 goes through FFmpeg too, because it honours the LAME gapless header (no encoder delay added)
/// and its resampler low-pass filters before decimating.
///
/// Errors, and what an HTTP caller should answer:
/// - `AudioFileError.notAudio`: the bytes are not audio we can read: empty, text, garbage, a
///   container with no audio stream, or so truncated or corrupt that nothing decodes. **400**.
/// - `AudioFileError.unsupported`: a recognised media file whose audio codec this FFmpeg build
///   cannot decode. **415**.
/// - `AudioFileError.tooLong`: longer than the caller's `maximumSeconds`; decoding stops there, so
///   a small file of hours of near-silent Opus never becomes gigabytes of samples. **413**.
/// - `FFmpegError`: FFmpeg failed on something other than the input (memory, resampler setup). **500**.
///
/// A file truncated mid-stream decodes to the audio before the cut, as a partial upload would.
///
/// An instance is the ``TranscriptionEngine``'s decoder in speak-full: it resamples as it decodes,
/// so the engine has nothing left to convert.
public struct MediaDecoder: AudioFileDecoder {
    public init() {}

    public func decode(file: URL, sampleRate: Int, maximumSeconds: Int?) throws -> PCMBuffer {
        try Self.decode(file: file, sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }

    public func stream(descriptor: Int32, sampleRate: Int, maximumSeconds: Int?) throws -> any DecodedAudioStream {
        try MediaDecodingStream(descriptor: descriptor, sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }

    /// Decodes the file at `file`, recognised by its content, not its extension.
    public static func decode(file: URL, sampleRate: Int = 16000, maximumSeconds: Int? = nil) throws -> PCMBuffer {
        try decode(
            Data(contentsOf: file, options: .mappedIfSafe), sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }

    /// Decodes a whole media file held in memory; with `maximumSeconds`, throws
    /// `AudioFileError.tooLong` as soon as the audio runs past it.
    public static func decode(_ data: Data, sampleRate: Int = 16000, maximumSeconds: Int? = nil) throws -> PCMBuffer {
        let maximumSamples = Self.maximumSamples(maximumSeconds, sampleRate: sampleRate)
        guard !data.isEmpty else { throw AudioFileError.notAudio("empty input") }
        // A damaged header (a 1 Hz rate) is refused before FFmpeg would resample it 16000-fold.
        if WAV.isWAV(data) { _ = try WAV.format(of: data) }
        if WAV.isWAV(data), let pcm = try? WAV.decode(data), pcm.sampleRate == sampleRate {
            guard !pcm.samples.isEmpty else { throw AudioFileError.notAudio("WAV file without samples") }
            if pcm.samples.count > maximumSamples {
                throw AudioFileError.tooLong(limitSeconds: maximumSamples / sampleRate)
            }
            return pcm
        }
        _ = quiet
        return try data.withUnsafeBytes { bytes in
            let decoding = try FFmpegDecoding(
                input: MediaInput(.memory(bytes)), sampleRate: sampleRate, maximumSamples: maximumSamples)
            return PCMBuffer(sampleRate: sampleRate, samples: try decoding.run())
        }
    }

    /// `seconds` at `sampleRate` as a sample count; no limit is `Int.max`.
    static func maximumSamples(_ seconds: Int?, sampleRate: Int) -> Int {
        precondition(sampleRate > 0, "sample rate must be positive")
        guard let seconds else { return .max }
        let (samples, overflow) = max(0, seconds).multipliedReportingOverflow(by: sampleRate)
        return overflow ? .max : samples
    }

    /// FFmpeg logs to stderr by default; its failures reach callers as errors instead.
    static let quiet: Void = av_log_set_level(AV_LOG_QUIET)
}
