internal import CFFmpeg
import SpeakKit

/// A failure reported by FFmpeg's libraries (libavformat, libavcodec, libswresample, libavutil).
public struct FFmpegError: CLibraryCodes {
    public static let library = "FFmpeg"
    /// The `AVERROR` code: a negated errno or an FFmpeg tag such as `AVERROR_INVALIDDATA`.
    public let code: Int32
    public let function: String
    /// `av_strerror`'s text for the code.
    public let message: String

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        message = Self.message(code)
    }

    /// `av_strerror`'s text for `code`.
    static func message(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
        av_strerror(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func outOfMemory(_ function: String) -> FFmpegError { FFmpegError(code: enomem, function: function) }

    /// A call returns a count, or a negative `AVERROR`.
    public static func isFailure(_ code: Int32) -> Bool { code < 0 }

    static let again = speak_averror_eagain()
    static let endOfFile = speak_averror_eof()
    static let enomem = speak_averror_enomem()
}
