import SpeakKit

/// A failure reported by pocketsphinx, with the C function that returned it.
///
/// pocketsphinx explains its failures only in its log, which speak silences, so `message` is ours.
public struct PocketSphinxError: CLibraryError {
    public static let library = "pocketsphinx"
    public let code: Int32
    public let function: String
    public let message: String
    /// Words of the expected phrases that the pronouncing dictionary lacks; empty for other failures.
    public let unknownWords: [String]
    /// The language asked for, when the model cannot transcribe it.
    public let unsupportedLanguage: String?

    public init(
        code: Int32, function: String, message: String, unknownWords: [String] = [], unsupportedLanguage: String? = nil
    ) {
        self.code = code
        self.function = function
        self.message = message
        self.unknownWords = unknownWords
        self.unsupportedLanguage = unsupportedLanguage
    }

    /// Words the recogniser cannot listen for, as one error that names them all.
    static func unknownWords(_ words: [String]) -> PocketSphinxError {
        let list = words.map { "'\($0)'" }.joined(separator: ", ")
        return PocketSphinxError(
            code: -1, function: "ps_lookup_word",
            message: "not in the pronouncing dictionary: \(list); expected phrases must use dictionary words",
            unknownWords: words)
    }

    /// A language the US English model cannot transcribe.
    static func unsupported(language: String) -> PocketSphinxError {
        PocketSphinxError(
            code: -1, function: "transcribe", message: "the model is US English; cannot transcribe '\(language)'",
            unsupportedLanguage: language)
    }

    /// Turns a pocketsphinx return code (negative on failure) into success or a `PocketSphinxError`.
    static func check(_ code: Int32, _ function: String, _ message: @autoclosure () -> String) throws(PocketSphinxError)
    {
        guard code < 0 else { return }
        throw PocketSphinxError(code: code, function: function, message: message())
    }
}

extension PocketSphinxError: TranscriptionRequestFault {
    public var requestFault: (parameter: String, message: String)? {
        if !unknownWords.isEmpty { return ("expect", message) }
        if unsupportedLanguage != nil { return ("language", message) }
        return nil
    }
}
