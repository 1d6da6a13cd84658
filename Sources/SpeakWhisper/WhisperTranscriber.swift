internal import CWhisper
import Foundation
import SpeakKit

/// Speech recognition with whisper.cpp, in process.
///
/// The model is loaded once per process (every transcriber of the same file shares it); each call
/// borrows a decoding state from a bounded pool, so one transcriber serves concurrent callers with
/// memory that does not grow with them. Audio is decoded in windows of at most 30 s, each handed to
/// whisper.cpp with an encoder context fitted to its length (`audio_ctx`): a 2 s answer costs a
/// 2 s encode, not whisper's fixed 30 s. Longer audio is transcribed whole, window after window,
/// only the current window converted to floats, with times relative to the whole recording.
public final class WhisperTranscriber: Transcriber, Sendable {
    public let model: WhisperModel
    public let configuration: Configuration
    let context: WhisperContext
    let pool: WhisperStatePool

    /// whisper.cpp's sample rate, the one every transcriber takes.
    public static let sampleRate = TranscriptionEngine.sampleRate
    /// The longest stretch whisper decodes at once.
    public static let windowSeconds = 30
    /// Samples of steady sound kept at a window's edges (0.3 s): the start of a soft first
    /// consonant, the fading of a last one.
    static let leadBeforeSound = sampleRate * 3 / 10

    /// Loads `model` (or takes the process's copy of it). A missing file is ``WhisperError/Kind/modelMissing``,
    /// a file that is not a whisper.cpp model ``WhisperError/Kind/modelCorrupt``.
    public init(model: WhisperModel, configuration: Configuration = Configuration()) throws(WhisperError) {
        self.model = model
        self.configuration = configuration
        context = try WhisperContext.shared(model)
        pool = WhisperStatePool(context: context, capacity: configuration.maxConcurrentCalls)
    }

    /// Finds the model by name or path (``WhisperModel/find(_:in:)``) and loads it.
    public convenience init(
        model nameOrPath: String?, directories: [String] = WhisperModel.searchDirectories(),
        configuration: Configuration = Configuration()
    ) throws(WhisperError) {
        try self.init(model: WhisperModel.find(nameOrPath, in: directories), configuration: configuration)
    }

    /// Whether the model knows languages other than English (not a `.en` model).
    public var isMultilingual: Bool { context.header.isMultilingual }
    /// Seconds the first load of this model took in this process.
    public var loadSeconds: Double { context.loadSeconds }
    /// Decoding states made so far, at most ``Configuration/maxConcurrentCalls``.
    public var statesCreated: Int { pool.itemsMade }

    // MARK: Transcribing

    /// Transcribes `audio`, at 16 kHz (``TranscriptionEngine`` converts other audio). `language` is
    /// honoured (an unknown one, or a non-English one for an English-only model, is
    /// ``WhisperError/Kind/invalidRequest``) or detected when `nil`, and reported in
    /// ``Transcript/language``; `prompt` becomes whisper's initial prompt; `temperature` its starting
    /// temperature. With `expectedPhrases` the text is exactly one of them or empty.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws(WhisperError) -> Transcript {
        if let problem = TranscriptionEngine.rateProblem(audio) {
            throw WhisperError(.failed, function: "transcribe", message: problem)
        }
        let language = try whisperLanguage(options.language)
        var phrases: [String]?
        if let expected = options.expectedPhrases {
            phrases = expected.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard phrases?.isEmpty == false else {
                throw WhisperError(
                    .invalidRequest, function: "transcribe", message: "the expected phrases are all empty",
                    parameter: "expect")
            }
        }
        // A fresh state each call: whisper.cpp seeds its first decoder's sampler only when a state
        // is made, so a reused one samples a temperature fallback by what came before.
        let lease = try pool.acquire()
        defer { pool.retire(lease) }
        var transcript = try transcribeWindows(audio, options: options, language: language, lease: lease)
        if let phrases {
            transcript = ExpectedPhrases.answer(transcript, among: phrases, tolerance: configuration.phraseTolerance)
        }
        return transcript
    }

    /// whisper's code for a BCP 47 tag (`en-US` → `en`), or `nil` to detect the language.
    private func whisperLanguage(_ tag: String?) throws(WhisperError) -> String? {
        guard let tag = tag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty, tag.lowercased() != "auto" else {
            return context.header.isMultilingual ? nil : "en"
        }
        let primary = String(tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
        let id = whisper_lang_id(primary)
        guard id >= 0, let code = whisper_lang_str(id).map({ String(cString: $0) }) else {
            throw WhisperError(
                .invalidRequest, function: "whisper_lang_id", message: "unknown language '\(tag)'",
                parameter: "language")
        }
        guard context.header.isMultilingual || code == "en" else {
            throw WhisperError(
                .invalidRequest, function: "transcribe",
                message: "the model \(model.name) is English-only; cannot transcribe '\(tag)'"
                    + " (use a multilingual model such as base)", parameter: "language")
        }
        return code
    }
}
