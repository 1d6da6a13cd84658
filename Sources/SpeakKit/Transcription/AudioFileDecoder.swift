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
