import FoundationEssentials
import Glibc
import SpeakKit

/// speak's exit codes, after BSD's sysexits(3) as `say` and most Unix tools use them.
package enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    // The voice round trip's outcomes (speak ask, speak record, speak transcribe).
    case noSpeech = 3
    case notUnderstood = 4
    case timedOut = 5
    case transcriptionFailed = 6
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case recordingFailed = 74
    case busy = 75
    case noPermission = 77
    case interrupted = 130

    /// The exit code and the one-line message for an error.
    package static func report(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError: (.usage, error.description)
        case let error as VoiceError:
            switch error {
            case .unknown: (.usage, error.description)
            case .unreadableDirectory: (.noInput, error.description)
            case .invalidFile, .invalidSettings: (.dataError, error.description)
            }
        case let error as InputError: (error.code, error.message)
        case let error as AudioFileError: (.dataError, error.description)
        case is PlaybackInterrupted: (.interrupted, "interrupted")
        case let error as PlaybackBusy:
            (.busy, "device busy: \(error.reason); try again, or drop --no-wait to take turns")
        case let error as SynthesisError:
            switch error {
            case .engineUnavailable: (.noInput, error.description)
            case .modelDamaged: (.dataError, error.description)
            case .engineNotCarried: (.unavailable, error.description)
            }
        case let error as PlaybackError:
            switch error {
            case .deviceBusy(let device, let reason):
                (.busy, "device busy: '\(device)' is in use by another program (\(reason)); pick another with -a")
            case .noPlaybackDevice(let device, let reason):
                (
                    .unavailable,
                    "no playback device '\(device)' (\(reason)): pick one with -a (speak -a '?' lists them), "
                        + "or write a file with -o reply.mp3"
                )
            case .permissionDenied: (.noPermission, error.description)
            case .playbackFailed: (.failure, error.description)
            }
        case let error as RecorderError:
            switch error {
            case .noCaptureDevice: (.unavailable, "\(error): pick one with --mic (or -a for speak record)")
            case .permissionDenied: (.noPermission, error.description)
            case .deviceBusy: (.busy, error.description)
            case .tooShort: (.dataError, error.description)
            case .noSpeech: (.noSpeech, error.description)
            case .cancelled: (.interrupted, error.description)
            case .recordingFailed: (.recordingFailed, error.description)
            }
        case let error as any CommandLineError where error.commandLineReport != nil: error.commandLineReport!
        default: (.failure, String(describing: error))
        }
    }
}

/// An error of an engine the light `speak` does not carry, which knows its exit code and line.
package protocol CommandLineError: Error {
    /// The exit code and one line for the error, or `nil` for the usual `1` and its description.
    var commandLineReport: (ExitCode, String)? { get }
}

/// Input the command cannot use: a missing or unreadable file, text too long or not UTF-8.
package struct InputError: Error {
    package let code: ExitCode
    package let message: String

    package init(code: ExitCode, message: String) {
        self.code = code
        self.message = message
    }
}

/// A failure whose message is already on stderr: only its exit code is left to give.
package struct AlreadyReported: Error {
    package let code: ExitCode
    package init(code: ExitCode) { self.code = code }
}

/// `--help` of a subcommand: printed on stdout, exit 0.
package struct HelpRequested: Error {
    package let text: String
    package init(text: String) { self.text = text }
}

/// Runs a subcommand, turning its error into one line on stderr and an exit code.
package func runReporting(as command: String = "speak", _ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return ExitCode.success.rawValue
    } catch let help as HelpRequested {
        print(help.text)
        return ExitCode.success.rawValue
    } catch let needs as NeedsFullExecutable {
        Handover.toFullExecutable(because: needs.reason)
    } catch let reported as AlreadyReported {
        return reported.code.rawValue
    } catch {
        let (code, message) = ExitCode.report(error)
        // One line, whatever it quotes (a file name may hold a newline, or a carriage return).
        let line = message.unicodeScalars.map { $0 == "\n" ? "\\n" : $0 == "\r" ? "\\r" : String($0) }.joined()
        writeToStandardError("\(command): \(line)\n")
        return code.rawValue
    }
}
