internal import CFFmpeg
import Foundation
import SpeakKit

/// A media file decoded a piece at a time to mono 16-bit PCM, as ``MediaDecoder`` decodes it whole:
/// hours of audio go through in bounded memory, the file read as it is decoded, never held.
///
/// The errors are ``MediaDecoder``'s: `AudioFileError.notAudio` and `.unsupported` from `init` (or
/// from the first read, when nothing decodes), and `AudioFileError.tooLong` from the read that runs
/// past `maximumSeconds`. 16-bit PCM WAV at the wanted rate is read natively, sample for sample.
public final class MediaDecodingStream: DecodedAudioStream {
    public let sampleRate: Int
    private let input: MediaInput
    private let source: Source
    /// Samples handed out so far.
    public private(set) var samplesRead = 0

    private enum Source {
        case wav(WAVSamples)
        case ffmpeg(FFmpegDecoding)
    }

    /// Decodes the regular file open at `descriptor`, which the caller keeps open and closes after.
    /// It is read with `pread`, so one descriptor serves several streams, one after the other.
    public init(descriptor: Int32, sampleRate: Int = 16000, maximumSeconds: Int? = nil) throws {
        self.sampleRate = sampleRate
        let maximumSamples = MediaDecoder.maximumSamples(maximumSeconds, sampleRate: sampleRate)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw AudioFileError.notAudio("not a regular file")
        }
        input = MediaInput(.file(descriptor: descriptor, size: Int(status.st_size)))
        guard input.size > 0 else { throw AudioFileError.notAudio("empty input") }
        if let wav = try WAVSamples(input, sampleRate: sampleRate) {
            guard wav.frames > 0 else { throw AudioFileError.notAudio("WAV file without samples") }
            if wav.frames > maximumSamples { throw AudioFileError.tooLong(limitSeconds: maximumSamples / sampleRate) }
            source = .wav(wav)
        } else {
            _ = MediaDecoder.quiet
            input.position = 0
            source = .ffmpeg(
                try FFmpegDecoding(input: input, sampleRate: sampleRate, maximumSamples: maximumSamples))
        }
    }

    /// The next samples, up to `count` of them; empty at the end of the audio.
    public func read(upTo count: Int) throws -> [Int16] {
        let samples =
            switch source {
            case .wav(let wav): wav.read(upTo: count)
            case .ffmpeg(let decoding): try decoding.read(upTo: count)
            }
        samplesRead += samples.count
        return samples
    }

    /// Decodes the rest of the audio without keeping it (to measure it, or to find that it is
    /// too long); returns how many samples it had.
    public func skipToEnd() throws -> Int {
        let skipped =
            switch source {
            case .wav(let wav): wav.skipToEnd()
            case .ffmpeg(let decoding): try decoding.skipToEnd()
            }
        samplesRead += skipped
        return skipped
    }
}

/// The samples of a 16-bit PCM WAV file already at the wanted rate, channels mixed to mono as
/// `WAV.decode` mixes them, read from the file a piece at a time.
private final class WAVSamples {
    private let input: MediaInput
    private let channels: Int
    private let blockAlign: Int
    private let end: Int
    let frames: Int

    /// `nil` for anything but such a WAV; a WAV whose header is damaged is refused, as
    /// ``MediaDecoder`` refuses it, before FFmpeg would resample a 1 Hz claim 16000-fold.
    init?(_ input: MediaInput, sampleRate: Int) throws {
        var header = Data(count: min(input.size, 1 << 20))
        let got = header.withUnsafeMutableBytes { input.read(into: $0.baseAddress!, count: $0.count) }
        header = header.prefix(max(0, got))
        guard WAV.isWAV(header) else { return nil }
        let format = try WAV.format(of: header)
        guard format.encoding == 1, format.bitsPerSample == 16, format.sampleRate == sampleRate else { return nil }
        let start = format.samples.lowerBound
        let declared = header[start - 4..<start].reversed().reduce(0) { $0 << 8 | Int($1) }
        // A stream's header may carry size 0 or 0xFFFFFFFF: read to the end then.
        end = declared == 0 || declared == 0xFFFF_FFFF ? input.size : min(input.size, start + declared)
        self.input = input
        channels = format.channels
        blockAlign = format.blockAlign
        frames = max(0, end - start) / blockAlign
        input.position = start
    }

    func skipToEnd() -> Int {
        let frames = max(0, end - input.position) / blockAlign
        input.position = end
        return frames
    }

    func read(upTo count: Int) -> [Int16] {
        let wanted = min(count, (end - input.position) / blockAlign)
        guard wanted > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: wanted * blockAlign)
        let got = bytes.withUnsafeMutableBytes { input.read(into: $0.baseAddress!, count: $0.count) }
        let frames = max(0, got) / blockAlign
        return (0..<frames).map { frame in
            var sum = 0
            for channel in 0..<channels {
                let at = (frame * channels + channel) * 2
                sum += Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
            }
            return Int16(sum / channels)
        }
    }
}
