import FoundationEssentials
import Glibc
import SpeakKit

/// `speak` carries espeak-ng, LAME, mpg123 and ALSA only, so that it starts as fast as `espeak-ng`.
/// Commands and voices that need more (the server, transcription, upstream and neural voices)
/// are run by `speak-full`, which `speak` replaces itself with, keeping the same arguments: the
/// way `git foo` runs `git-foo`.
package enum Handover {
    package static let fullExecutableName = "speak-full"

    /// Where this process's executable lives, symlinks resolved.
    package static var executableDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// `speak-full` beside `speak` (a build tree) or in `../libexec/speak/` (an installed prefix).
    package static func fullExecutable(near directory: URL = executableDirectory) -> URL? {
        [
            directory.appendingPathComponent(fullExecutableName),
            directory.appendingPathComponent("../libexec/speak/\(fullExecutableName)"),
        ]
        .map(\.standardizedFileURL)
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The light `speak` beside `speak-full` or the prefix's `bin/`: the synthesis workers run it,
    /// as it loads only espeak-ng.
    package static func lightExecutable(near directory: URL = executableDirectory) -> URL? {
        [directory.appendingPathComponent("speak"), directory.appendingPathComponent("../../bin/speak")]
            .map(\.standardizedFileURL)
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Replaces this process with `speak-full` and the same arguments, as their bytes came (Swift's
    /// Strings repair what is not UTF-8, which `speak-full` must see to refuse); returns only on failure.
    package static func toFullExecutable(because reason: String) -> Never {
        guard let full = fullExecutable() else {
            writeToStandardError("speak: \(reason) needs \(fullExecutableName), which is not installed beside speak\n")
            exit(ExitCode.unavailable.rawValue)
        }
        let argv = [strdup(full.path)] + (1..<Int(CommandLine.argc)).map { strdup(CommandLine.unsafeArgv[$0]!) } + [nil]
        execv(full.path, argv)
        writeToStandardError("speak: cannot run \(full.path): \(String(cString: strerror(errno)))\n")
        exit(ExitCode.unavailable.rawValue)
    }
}

/// Thrown where `speak` meets what only `speak-full` can do.
package struct NeedsFullExecutable: Error {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}
