import Foundation
import SpeakKit

/// `speak transcribe FILE… [--expect "yes|no"] [--json]`: audio files to text.
enum TranscribeCommand {
    static let help = """
        speak transcribe: audio files (wav, mp3, m4a, webm, ogg, flac) to text.

        usage: speak transcribe FILE… [--expect "yes|no|cancel"] [--language en] [--json]
               speak transcribe --pending [--keep]     (retry the recordings waiting in the spool)

        Recognition is local (pocketsphinx). --expect restricts it to the listed phrases: the
        reliable mode for answers in scripts. --json prints {"file","text","duration"} per file.
        """

    struct Arguments {
        var files: [String] = []
        var expect: [String]?
        var language: String?
        var json = false
        var pending = false
        var keep = false

        init(_ arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--expect":
                    guard let value = remaining.popFirst() else { throw UsageError("--expect needs phrases, e.g. \"yes|no\"") }
                    expect = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                case "--language":
                    guard let value = remaining.popFirst() else { throw UsageError("--language needs a value") }
                    language = value
                case "--json": json = true
                case "--pending": pending = true
                case "--keep": keep = true
                case "-h", "--help": throw HelpRequested(text: TranscribeCommand.help)
                case _ where argument.hasPrefix("-") && argument.count > 1: throw UsageError("unknown option \(argument) (speak transcribe --help)")
                default: files.append(argument)
                }
            }
            guard pending || !files.isEmpty else { throw UsageError("no files to transcribe (speak transcribe --help)") }
        }

        var options: TranscriptionOptions { TranscriptionOptions(language: language, expectedPhrases: expect) }
    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            let arguments = try Arguments(arguments)
            let transcriber = try PocketSphinxTranscriber()
            for file in arguments.files {
                let transcript = try transcribe(file, with: transcriber, options: arguments.options)
                print(arguments.json ? json(file: file, transcript) : transcript.text)
            }
        }
    }

    /// Decodes and transcribes one file; an empty transcript is "not understood".
    static func transcribe(_ file: String, with transcriber: any Transcriber, options: TranscriptionOptions) throws -> Transcript {
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw InputError(code: .noInput, message: "cannot read \(file): \(String(cString: strerror(errno)))")
        }
        let audio: PCMBuffer
        do { audio = try MediaDecoder.decode(file: URL(fileURLWithPath: file)) } catch let error as AudioFileError {
            throw InputError(code: .dataError, message: "\(file): \(error)")
        }
        guard audio.duration >= 0.01 else { throw InputError(code: .dataError, message: "\(file): shorter than 0.01 s") }
        let transcript = try transcriber.transcribe(audio, options: options)
        guard !transcript.text.isEmpty else { throw InputError(code: .notUnderstood, message: "\(file): nothing understood (empty transcript)") }
        return transcript
    }

    static func json(file: String, _ transcript: Transcript) -> String {
        let object: [String: Any] = ["file": file, "text": transcript.text, "duration": (transcript.duration * 1000).rounded() / 1000]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(), as: UTF8.self)
    }
}

/// `--help` of a subcommand: printed on stdout, exit 0.
struct HelpRequested: Error {
    let text: String
}

/// Runs a subcommand, turning its error into one line on stderr and an exit code.
func runReporting(_ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return ExitCode.success.rawValue
    } catch let help as HelpRequested {
        print(help.text)
        return ExitCode.success.rawValue
    } catch {
        let (code, message) = ExitCode.report(error, device: "")
        FileHandle.standardError.write(Data("speak: \(message)\n".utf8))
        return code.rawValue
    }
}
