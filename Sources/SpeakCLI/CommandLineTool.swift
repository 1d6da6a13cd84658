import SpeakKit

/// What one `speak` executable carries: the light one the local engines (espeak-ng, Piper voices),
/// `speak-full` every engine.
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
}
