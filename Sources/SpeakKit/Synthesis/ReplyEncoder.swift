import FoundationEssentials
import Glibc

/// The audio formats a reply can be streamed in, as OpenAI's `response_format` names them.
public enum ReplyFormat: String, Codable, Sendable, CaseIterable {
    case mp3, opus, aac, flac, wav, pcm

    public var contentType: String {
        switch self {
        case .mp3: "audio/mpeg"
        case .opus: "audio/ogg"
        case .aac: "audio/aac"
        case .flac: "audio/flac"
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        }
    }

    /// OpenAI's `pcm` is 24 kHz signed 16-bit little-endian mono, whatever the synthesizer makes.
    public static let pcmSampleRate = 24000
}

/// An encoder for one reply whose codec lives outside SpeakKit (FFmpeg's, in SpeakMedia): PCM at
/// the rate it was made for in, container bytes out, as they are ready.
public protocol StreamingAudioEncoder: AnyObject {
    func encode(_ samples: UnsafeBufferPointer<Int16>) throws -> Data
    /// Flushes the codec and the container (Ogg's last page, say): the reply's last bytes.
    func finish() throws -> Data
}

/// A format this program was built without: the light `speak` links no FFmpeg.
public struct ReplyFormatUnavailable: Error, CustomStringConvertible, Sendable {
    public let format: ReplyFormat
    public var description: String { "\(format.rawValue) replies are not available in this program" }
}

/// Encodes one reply as its PCM arrives, so the first bytes can go out before the text is spoken
/// to the end. One encoder per reply: an MP3 reply is one continuous stream of frames.
public final class ReplyEncoder {
    /// Makes an encoder of a format outside SpeakKit (``Codecs/replyEncoders``), for PCM at `inputRate`.
    public typealias Maker = @Sendable (_ inputRate: Int) throws -> any StreamingAudioEncoder

    static let builtIn: Set<ReplyFormat> = [.mp3, .wav, .pcm]

    public let format: ReplyFormat
    private let inputRate: Int
    private let mp3: MP3Encoder?
    private let plugin: (any StreamingAudioEncoder)?
    private var resampler: Resampler
    private var headerWritten = false

    /// An encoder from `codecs`, which must be able to encode `format` (``Codecs/canEncode(_:)``);
    /// SpeakKit's own encode MP3, WAV and PCM.
    public init(format: ReplyFormat, inputRate: Int, mp3: MP3Settings = .init(), codecs: Codecs = .builtIn) throws {
        self.format = format
        self.inputRate = inputRate
        self.mp3 = format == .mp3 ? try MP3Encoder(inputRate: inputRate, settings: mp3) : nil
        if Self.builtIn.contains(format) {
            plugin = nil
        } else {
            guard let make = codecs.replyEncoders[format] else { throw ReplyFormatUnavailable(format: format) }
            plugin = try make(inputRate)
        }
        resampler = Resampler(inputRate: inputRate, outputRate: ReplyFormat.pcmSampleRate)
    }

    /// Encodes the next chunk; returns the bytes ready to send, possibly none.
    public func encode(_ samples: UnsafeBufferPointer<Int16>) throws -> Data {
        switch format {
        case .mp3: return try mp3!.encode(Array(samples))
        case .wav: return header() + Data(buffer: samples)
        case .pcm: return Self.littleEndian(resampler.process(samples))
        case .opus, .aac, .flac: return try plugin!.encode(samples)
        }
    }

    /// The reply's last bytes.
    public func finish() throws -> Data {
        switch format {
        case .mp3: return try mp3!.finish()
        case .wav: return header()
        case .pcm: return Self.littleEndian(resampler.finish())
        case .opus, .aac, .flac: return try plugin!.finish()
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
