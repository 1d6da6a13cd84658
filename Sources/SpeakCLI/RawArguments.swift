import FoundationEssentials
import Glibc

/// Swift hands `main` its arguments as Strings, each byte that is not UTF-8 repaired to U+FFFD:
/// a text must not be spoken so, nor a file name used so (it would name another file).
package enum RawArguments {
    /// Whether `value` is an argument (or an option's `--name=value`) that arrived as bytes that
    /// are not UTF-8.
    package static func wasRepaired(_ value: String) -> Bool {
        guard value.unicodeScalars.contains("\u{FFFD}") else { return false }
        return (1..<Int(CommandLine.argc)).contains { index in
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { return false }
            let repaired = String(cString: raw)
            return repaired == value || (repaired.hasPrefix("-") && repaired.hasSuffix("=" + value))
        }
    }

    /// Refuses a file name that is not UTF-8 (exit 64), before anything is read or written by it.
    package static func checkFileName(_ path: String) throws {
        guard wasRepaired(path) else { return }
        throw UsageError("the file name '\(path)' is not UTF-8: speak takes UTF-8 names (rename the file)")
    }
}
