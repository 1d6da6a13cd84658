import FoundationEssentials

/// Turns an audio file into mono 16-bit PCM for ``TranscriptionEngine``. Declared here, where the
/// engine is, so a decoder with heavy libraries (SpeakMedia's `MediaDecoder`, on FFmpeg) plugs in
/// from its own module and SpeakKit links none of them.
public protocol AudioFileDecoder: Sendable {
    /// Decodes `file`, recognised by its content, to mono. A decoder that resamples as it decodes
    /// returns `sampleRate`; one that cannot returns the file's own rate, and the engine resamples.
    ///
    /// Throws ``AudioFileError``: `notAudio` for bytes that are no audio it reads, `unsupported` for
    /// audio it recognises but cannot decode, `tooLong` once the audio runs past `maximumSeconds`.
    func decode(file: URL, sampleRate: Int, maximumSeconds: Int?) throws -> PCMBuffer

    /// The file open at `descriptor`, decoded from its start a piece at a time at `sampleRate`, so a
    /// long recording takes bounded memory. Throws as ``decode(file:sampleRate:maximumSeconds:)``.
    func stream(descriptor: Int32, sampleRate: Int, maximumSeconds: Int?) throws -> any DecodedAudioStream
}

/// A file's audio handed out a piece at a time, mono at the rate it was opened for.
public protocol DecodedAudioStream: AnyObject {
    /// Samples handed out so far.
    var samplesRead: Int { get }
    /// Up to `count` more samples; none at the end.
    func read(upTo count: Int) throws -> [Int16]
    /// Decodes to the end without keeping the samples; the count of them all.
    func skipToEnd() throws -> Int
}

extension AudioFileDecoder {
    /// For a decoder that only decodes whole files: the whole file, converted, handed out in pieces.
    public func stream(descriptor: Int32, sampleRate: Int, maximumSeconds: Int?) throws -> any DecodedAudioStream {
        let audio = try decode(
            file: URL(fileURLWithPath: "/proc/self/fd/\(descriptor)"), sampleRate: sampleRate,
            maximumSeconds: maximumSeconds)
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: sampleRate)
        let samples =
            audio.sampleRate == sampleRate ? audio.samples : resampler.process(audio.samples) + resampler.finish()
        return DecodedBuffer(samples)
    }
}

/// Samples already decoded, handed out as a stream.
final class DecodedBuffer: DecodedAudioStream {
    private let samples: [Int16]
    private(set) var samplesRead = 0

    init(_ samples: [Int16]) { self.samples = samples }

    func read(upTo count: Int) -> [Int16] {
        let end = min(samples.count, samplesRead + max(0, count))
        defer { samplesRead = end }
        return Array(samples[samplesRead..<end])
    }

    func skipToEnd() -> Int {
        samplesRead = samples.count
        return samples.count
    }
}

/// WAV (16-bit PCM) and MP3, with SpeakKit's own readers, at the file's own rate: the decoder of a
/// program without FFmpeg.
public struct WAVAndMP3Decoder: AudioFileDecoder {
    public init() {}

    public func decode(file: URL, sampleRate: Int, maximumSeconds: Int?) throws -> PCMBuffer {
        let data = try Data(contentsOf: file, options: .mappedIfSafe)
        guard !data.isEmpty else { throw AudioFileError.notAudio("empty input") }
        let audio = try PCMBuffer(audio: data)
        if let maximumSeconds, audio.duration > Double(maximumSeconds) {
            throw AudioFileError.tooLong(limitSeconds: maximumSeconds)
        }
        return audio
    }
}
