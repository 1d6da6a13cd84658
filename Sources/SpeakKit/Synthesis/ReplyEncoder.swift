import Foundation

/// The audio formats a reply can be streamed in, as OpenAI's `response_format` names them.
public enum ReplyFormat: String, Codable, Sendable, CaseIterable {
    case mp3, wav, pcm

    public var contentType: String {
        switch self {
        case .mp3: "audio/mpeg"
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        }
    }

    /// OpenAI's `pcm` is 24 kHz signed 16-bit little-endian mono, whatever the synthesizer makes.
    public static let pcmSampleRate = 24000
}

/// Encodes one reply as its PCM arrives, so the first bytes can go out before the text is spoken
/// to the end. One encoder per reply: an MP3 reply is one continuous stream of frames.
public final class ReplyEncoder {
    public let format: ReplyFormat
    private let inputRate: Int
    private let mp3: MP3Encoder?
    private var resampler: Resampler
    private var headerWritten = false

    public init(format: ReplyFormat, inputRate: Int, mp3: MP3Settings = .init()) throws {
        self.format = format
        self.inputRate = inputRate
        self.mp3 = format == .mp3 ? try MP3Encoder(inputRate: inputRate, settings: mp3) : nil
        resampler = Resampler(inputRate: inputRate, outputRate: ReplyFormat.pcmSampleRate)
    }

    /// Encodes the next chunk; returns the bytes ready to send, possibly none.
    public func encode(_ samples: UnsafeBufferPointer<Int16>) throws -> Data {
        switch format {
        case .mp3: return try mp3!.encode(Array(samples))
        case .wav: return header() + Data(buffer: samples)
        case .pcm: return Self.littleEndian(resampler.process(samples))
        }
    }

    /// The reply's last bytes.
    public func finish() throws -> Data {
        switch format {
        case .mp3: return try mp3!.finish()
        case .wav: return header()
        case .pcm: return Self.littleEndian(resampler.finish())
        }
    }

    /// A WAV header once, before the first samples. The length is unknown while streaming, so both
    /// sizes say 0xFFFFFFFF, which players and ``WAV/decode(_:)`` read as "to the end".
    private func header() -> Data {
        guard !headerWritten else { return Data() }
        headerWritten = true
        return WAV.header(sampleRate: inputRate, dataBytes: Int(UInt32.max))
    }

    private static func littleEndian(_ samples: [Int16]) -> Data {
        samples.map(\.littleEndian).withUnsafeBytes { Data($0) }
    }
}
