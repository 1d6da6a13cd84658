import Foundation

exit(SpeakCommand.main(Array(CommandLine.arguments.dropFirst())))
