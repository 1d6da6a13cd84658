import FoundationEssentials
import Glibc

extension ReplyFormat {
    /// The formats SpeakKit reads and writes as files itself, without FFmpeg: MP3 and WAV.
    public static let builtInFiles: [ReplyFormat] = [.mp3, .wav]

    /// The built-in file format a path asks for by its extension.
    public init?(builtInFileExtension pathExtension: String) {
        guard let format = ReplyFormat(rawValue: pathExtension.lowercased()), Self.builtInFiles.contains(format)
        else { return nil }
        self = format
    }
}

public enum AudioFileError: Error, Equatable, CustomStringConvertible {
    case notAudio(String)
    case unsupported(String)
    /// Decoding stopped at the caller's limit, in seconds.
    case tooLong(limitSeconds: Int)
    /// Under 0.01 s: nothing a transcriber can hear.
    case tooShort

    public var description: String {
        switch self {
        case .notAudio(let why): "not an audio file: \(why)"
        case .unsupported(let what): "unsupported audio: \(what)"
        case .tooLong(let limit): "the audio is longer than \(limit) s"
        case .tooShort: "shorter than 0.01 s"
        }
    }
}

extension PCMBuffer {
    /// Decodes WAV or MP3 bytes, recognised by their content.
    public init(audio data: Data) throws {
        if WAV.isWAV(data) {
            self = try WAV.decode(data)
        } else {
            self = try MP3Decoder.decode(data)
        }
    }

    /// The file encoded as `format`, one of ``ReplyFormat/builtInFiles``.
    public func encoded(as format: ReplyFormat, mp3: MP3Settings = .init()) throws -> Data {
        switch format {
        case .wav: return WAV.encode(self)
        case .mp3: return try MP3Encoder.encodeFile(self, settings: mp3)
        default: throw AudioFileError.unsupported("\(format.rawValue) files are FFmpeg's to write")
        }
    }
}
