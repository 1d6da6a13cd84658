import SpeakKit

/// What one `speak` executable carries: the light one the local engines (espeak-ng, Piper voices),
/// `speak-full` every engine.
package struct CommandLineTool: Sendable {
    package var synthesizers: SynthesizerRegistry
    /// `speak --remote URL "text"`: has another machine's `speak serve` say it (URL, token, text).
    package var speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)?
    /// The files SpeakKit does not write itself (`-o reply.m4a`): `speak-full`'s FFmpeg.
    package var mediaFiles: MediaFiles?
    /// Whether what this executable cannot do goes to `speak-full` (the light `speak`), or is
    /// an error here (`speak-full` itself: handing over again would exec it in a loop).
    package var handsOver: Bool

    package init(
        synthesizers: SynthesizerRegistry,
        speakRemotely: (@Sendable (String, String?, String, Options) throws -> Void)? = nil,
        mediaFiles: MediaFiles? = nil,
        handsOver: Bool
    ) {
        self.synthesizers = synthesizers
        self.speakRemotely = speakRemotely
        self.mediaFiles = mediaFiles
        self.handsOver = handsOver
    }

    /// Whether this executable writes `format` (SpeakKit's own formats, or its FFmpeg's).
    func canWrite(_ format: OutputFormat) -> Bool {
        if format.builtIn != nil { return true }
        guard let mediaFiles else { return false }
        return mediaFiles.missing(format) == nil
    }
}

/// Where PCM goes to become a file: ``AudioFileWriter`` (MP3, WAV), or an FFmpeg muxer.
package protocol AudioSink: AnyObject {
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Completes the file (a header's sizes, an index, the encoder's last frames).
    func finish() throws
}

extension AudioFileWriter: AudioSink {}

/// The audio files a program writes through a library the light `speak` does not link: it alone
/// knows which of its codecs and containers make each ``OutputFormat``.
package struct MediaFiles: Sendable {
    /// What it lacks to write the format, for a message; `nil` when it can write it.
    package var missing: @Sendable (OutputFormat) -> String?
    /// A writer into `file` (a descriptor, left open) of PCM at `inputRate`.
    package var open: @Sendable (_ format: OutputFormat, _ file: Int32, _ inputRate: Int) throws -> any AudioSink

    package init(
        missing: @escaping @Sendable (OutputFormat) -> String?,
        open: @escaping @Sendable (OutputFormat, Int32, Int) throws -> any AudioSink
    ) {
        self.missing = missing
        self.open = open
    }
}
