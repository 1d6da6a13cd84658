import Foundation
import SpeakCLI
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream

// The complete `speak`: every command and every engine. The light `speak` hands over to it.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve": exit(ServeCommand.main(Array(arguments.dropFirst())))
case "transcribe": exit(TranscribeCommand.main(Array(arguments.dropFirst())))
case "record": Interrupt.exit(RecordCommand.main(Array(arguments.dropFirst())))
case "ask": Interrupt.exit(AskCommand.main(Array(arguments.dropFirst())))
case "voices": exit(VoicesCommand.main(Array(arguments.dropFirst())))
case "worker" where arguments.count == 1: exit(SynthesisWorkerCommand.main())
default: Interrupt.exit(SpeakCommand.main(arguments, tool: .full))
}

extension CommandLineTool {
    static let full = CommandLineTool(
        synthesizers: Engines.commandLineSynthesizers(),
        speakRemotely: { url, token, text, options in
            try RemoteSpeaker(url: url, token: token).play(text, options: options)
        },
        mediaFiles: .ffmpeg,
        handsOver: false)
}
