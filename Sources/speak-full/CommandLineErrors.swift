import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream
import SpeakWhisper

// How the engines only speak-full carries end a command.

extension TranscriptionError: CommandLineError {
    package var commandLineReport: (ExitCode, String)? {
        // A 400 is the request's own mistake (a language the model lacks): a usage error, as it is here.
        (
            status == 400 ? .usage : .transcriptionFailed,
            "transcription failed\(isRetryable ? " (retryable)" : ""): \(message)"
        )
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
