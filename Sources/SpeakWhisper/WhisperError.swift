/// A failure of whisper.cpp or of finding its model: the C function, its return code, and one line
/// that says what went wrong (whisper.cpp's own log line where it wrote one).
public struct WhisperError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What the front ends need to tell apart: `speak` exits 66 for ``modelMissing``, 65 for
    /// ``modelCorrupt``; the server answers 503 for both, 400 for ``invalidRequest``.
    public enum Kind: Sendable, Equatable {
        /// No model file by that name or path.
        case modelMissing
        /// A file that is not a whisper.cpp model, or a damaged one.
        case modelCorrupt
        /// A request the model cannot serve (an unknown language, a language an English-only model lacks).
        case invalidRequest
        /// whisper.cpp failed while transcribing.
        case failed
    }

    public let kind: Kind
    public let code: Int32
    public let function: String
    public let message: String
    /// For ``Kind/invalidRequest``: the request field at fault (`language`, `expect`).
    public let parameter: String?

    public init(_ kind: Kind, code: Int32 = -1, function: String, message: String, parameter: String? = nil) {
        self.kind = kind
        self.code = code
        self.function = function
        self.message = message
        self.parameter = parameter
    }

    public var description: String {
        switch kind {
        case .modelMissing, .modelCorrupt, .invalidRequest: "whisper: \(message)"
        case .failed: "whisper: \(function) failed: \(message) (code \(code))"
        }
    }

    /// Turns a whisper.cpp return code (non-zero on failure) into success or a `WhisperError`.
    static func check(_ code: Int32, _ function: String, _ message: @autoclosure () -> String) throws(WhisperError) {
        guard code != 0 else { return }
        throw WhisperError(.failed, code: code, function: function, message: message())
    }
}
