import SpeakCLI
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream
import SpeakPocketSphinx
import SpeakUpstream

// How the engines only speak-full carries end a command.

extension TranscriptionError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? {
        (.transcriptionFailed, "transcription failed\(isRetryable ? " (retryable)" : ""): \(message)")
    }
}

extension PocketSphinxError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? { requestFault == nil ? nil : (.usage, description) }
}
