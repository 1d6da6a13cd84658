import FoundationEssentials
import Glibc
import SpeakCLI
import SpeakKit
import SpeakPiper

// The light `speak`: espeak-ng and Piper voices, files and listings here; everything else in
// speak-full. (Engines are registered here and in Sources/speak-full/Engines.swift.)
let light = CommandLineTool(
    synthesizers: SynthesizerRegistry([
        EspeakSynthesizer.engineName: { try EspeakSynthesizer.shared() },
        // A running `speak serve` has the model loaded already: it speaks, if it is there.
        PiperSynthesizer.engineName: { LocalServerHandoff(local: PiperSynthesizer()) },
    ]),
    handsOver: true)
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve", "transcribe", "record", "ask", "voices":
    Handover.toFullExecutable(because: "speak \(arguments[0])")
case "worker" where arguments.count == 1:
    exit(SynthesisWorkerCommand.main())
default:
    Interrupt.exit(SpeakCommand.main(arguments, tool: light))
}
