import FoundationEssentials
import Glibc

/// A finished recording: a 16-bit mono WAV file in the spool.
public struct Recording: Sendable, Equatable {
    /// Why recording stopped.
    public enum StopReason: Sendable, Equatable {
        /// `Recorder.stop()` was called.
        case stopped
        /// `Recorder.Options.maxDuration` was reached.
        case maxDuration
        /// The file reached `Recorder.Options.maxBytes`.
        case sizeLimit
        /// Until-silence end-pointing heard speech, then silence.
        case endOfSpeech
    }

    public var url: URL
    public var sampleRate: Int
    /// Seconds of audio in the file.
    public var duration: Double
    public var stopReason: StopReason

    public init(url: URL, sampleRate: Int, duration: Double, stopReason: StopReason) {
        self.url = url
        self.sampleRate = sampleRate
        self.duration = duration
        self.stopReason = stopReason
    }

    /// The audio, read back from the file.
    public func pcm() throws -> PCMBuffer { try PCMBuffer(audio: Data(contentsOf: url)) }

    /// The audio as MP3 for upload: LAME at 32 kbps, mono 16 kHz (about 4 KB a second).
    public func mp3Data() throws -> Data {
        try MP3Encoder.encodeFile(pcm(), settings: MP3Settings(sampleRate: 16000, bitrate: 32))
    }
}
