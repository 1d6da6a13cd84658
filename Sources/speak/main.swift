import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve": exit(ServeCommand.main(Array(arguments.dropFirst())))
default: exit(SpeakCommand.main(arguments))
}
