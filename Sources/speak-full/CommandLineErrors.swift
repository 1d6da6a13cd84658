import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream
import SpeakWhisper

// How the engines only speak-full carries end a command.

extension TranscriptionError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? {
        (.transcriptionFailed, "transcription failed\(isRetryable ? " (retryable)" : ""): \(message)")
    }
}

extension PocketSphinxError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? { requestFault == nil ? nil : (.usage, description) }
}

extension WhisperError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? {
        switch kind {
        case .modelMissing: (.noInput, description)
        case .modelCorrupt: (.dataError, description)
        case .invalidRequest: (.usage, description)
        case .failed: nil
        }
    }
}

extension WhisperError: TranscriptionRequestFault {
    public var requestFault: (parameter: String, message: String)? {
        guard kind == .invalidRequest else { return nil }
        return (parameter ?? "language", message)
    }
}
