import FoundationEssentials
import Glibc
import SpeakCLI
import SpeakEngines
import SpeakKit

// The light `speak`: espeak-ng and Piper voices (CommandLineEngines), files and listings here;
// everything else in speak-full.
let light = CommandLineTool(synthesizers: CommandLineEngines.synthesizers(), handsOver: true)
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve", "transcribe", "record", "ask", "voices":
    Handover.toFullExecutable(because: "speak \(arguments[0])")
case "worker" where arguments.count == 1:
    exit(SynthesisWorkerCommand.main())
default:
    Interrupt.exit(SpeakCommand.main(arguments, tool: light))
}
