/// How raw PCM is laid out, as Wyoming's `audio-start` and a WAV header describe it: interleaved
/// frames of `channels` samples of `width` bytes each, little-endian.
public struct PCMFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Int
    /// Bytes per sample: 1 (unsigned, as in WAV and the `wyoming` package's converter), or 2 to 4
    /// (signed).
    public var width: Int
    public var channels: Int

    public static let widths = 1...4

    public init(sampleRate: Int, width: Int = 2, channels: Int = 1) {
        precondition(sampleRate > 0, "sample rate must be positive")
        precondition(Self.widths.contains(width), "width must be 1 to 4 bytes")
        precondition(channels > 0, "channels must be positive")
        self.sampleRate = sampleRate
        self.width = width
        self.channels = channels
    }

    /// What every transcriber takes: 16 kHz, 16-bit mono.
    public static let transcription = PCMFormat(sampleRate: TranscriptionEngine.sampleRate)

    public var frameBytes: Int { width * channels }

    public var description: String { "\(sampleRate) Hz, \(width * 8)-bit, \(channels) channel(s)" }
}
