import SpeakKit

/// What one `speak` executable carries: the light one the local engines (espeak-ng, Piper voices),
/// `speak-full` every engine.
package struct CommandLineTool: Sendable {
    package var synthesizers: SynthesizerRegistry
    /// `speak --remote URL "text"`: has another machine's `speak serve` say it (URL, token, text).
    package var speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)?
    /// Whether what this executable cannot do goes to `speak-full` (the light `speak`), or is
    /// an error here (`speak-full` itself: handing over again would exec it in a loop).
    package var handsOver: Bool

    package init(
        synthesizers: SynthesizerRegistry,
        speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)? = nil,
        handsOver: Bool
    ) {
        self.synthesizers = synthesizers
        self.speakRemotely = speakRemotely
        self.handsOver = handsOver
    }
}
