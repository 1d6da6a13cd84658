/// What one `speak` executable carries: the light one only the engine's core, `speak-full` the rest.
package struct CommandLineTool: Sendable {
    /// `speak --remote URL "text"`: has another machine's `speak serve` say it (URL, token, text).
    package var speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)?

    package init(speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)? = nil) {
        self.speakRemotely = speakRemotely
    }

    /// The light `speak`.
    package static let light = CommandLineTool()
}
