import SpeakKit

/// What one `speak` executable carries: the light one espeak-ng only, `speak-full` every engine.
package struct CommandLineTool: Sendable {
    package var synthesizers: SynthesizerRegistry
    /// `speak --remote URL "text"`: has another machine's `speak serve` say it (URL, token, text).
    package var speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)?

    package init(
        synthesizers: SynthesizerRegistry,
        speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)? = nil
    ) {
        self.synthesizers = synthesizers
        self.speakRemotely = speakRemotely
    }

    /// The light `speak`.
    package static let light = CommandLineTool(synthesizers: .espeakOnly)
}

extension SynthesizerRegistry {
    /// espeak-ng in this process: what the light `speak` carries.
    package static let espeakOnly = SynthesizerRegistry([EspeakSynthesizer.engineName: { try EspeakSynthesizer.shared() }])
}
