import Foundation
import SpeakCLI

// The light `speak`: espeak-ng voices, files and listings here; everything else in speak-full.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve", "transcribe", "record", "ask":
    Handover.toFullExecutable(arguments, because: "speak \(arguments[0])")
case "worker" where arguments.count == 1:
    exit(SynthesisWorkerCommand.main())
default:
    exit(SpeakCommand.main(arguments, tool: .light))
}
