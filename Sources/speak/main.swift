import Foundation
import SpeakKit

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve": exit(ServeCommand.main(Array(arguments.dropFirst())))
case "transcribe": exit(TranscribeCommand.main(Array(arguments.dropFirst())))
case "record": exit(RecordCommand.main(Array(arguments.dropFirst())))
case "ask": exit(AskCommand.main(Array(arguments.dropFirst())))
// A synthesis process of `speak serve`'s WorkerPool (not in --help); `speak worker bee` still speaks.
case "worker" where arguments.count == 1:
    SynthesisWorker.serve(input: .standardInput, output: .standardOutput)
    exit(0)
default: exit(SpeakCommand.main(arguments))
}
