import SpeakKit

/// A command's flags, declared once: ``scan(_:into:operand:)`` reads them and ``helpText`` lists
/// them, so `--help` cannot leave a flag out and every command suggests the flag a typo meant.
package struct CommandFlags<State> {
    package struct Flag {
        /// Every name it answers to, the short one first (`-v`, `--voice`).
        package let names: [String]
        /// What `--help` calls its value (`NAME`, `WPM`); nil for a switch, which takes none.
        package let value: String?
        /// Its `--help` lines, without indentation.
        package let help: String
        /// Applies it: `value` is the flag's value, or its name for a switch.
        package let apply: (inout State, _ value: String, _ name: String) throws -> Void

        package init(
            names: [String], value: String?, help: String,
            apply: @escaping (inout State, _ value: String, _ name: String) throws -> Void
        ) {
            (self.names, self.value, self.help, self.apply) = (names, value, help, apply)
        }
    }

    /// How the command is named in hints: `speak serve`.
    package let command: String
    /// What `--help` says before the options.
    package let summary: String
    package let flags: [Flag]
    /// What `--help` says after the options (examples, exit codes), if anything.
    package let epilogue: String

    package init(command: String, summary: String, flags: [Flag], epilogue: String = "") {
        self.command = command
        self.summary = summary
        // Before a trailing --version, as help is usually listed.
        var flags = flags
        let help = Flag.switch("-h", "--help", help: "this help") { _ in }
        flags.insert(help, at: flags.last?.names == ["--version"] ? flags.count - 1 : flags.count)
        self.flags = flags
        self.epilogue = epilogue
    }

    /// Reads `arguments` into `state`: `--flag VALUE` or `--flag=VALUE`, switches alone, `--` ends
    /// the flags, and anything else (including `-` alone) is an operand, in order.
    /// `-h`/`--help` throws ``HelpRequested`` with ``helpText``; an unknown flag is a ``UsageError``
    /// naming the closest known one.
    package func scan(
        _ arguments: [String], into state: inout State, operand: (inout State, String) throws -> Void
    ) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                for word in remaining { try operand(&state, word) }
                return
            }
            guard argument.count > 1, argument.hasPrefix("-") else {
                try operand(&state, argument)
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let flag = flags.first(where: { $0.names.contains(name) }) else {
                let hint = closestMatches(to: name, among: flags.flatMap(\.names), limit: 1).first
                throw UsageError(
                    "unknown option \(name)\(hint.map { "; did you mean \($0)?" } ?? "") (\(command) --help)")
            }
            if name == "-h" || name == "--help" { throw HelpRequested(text: helpText) }
            if flag.value == nil {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                try flag.apply(&state, name, name)
            } else {
                guard let value = inline ?? remaining.popFirst() else { throw UsageError("\(name) needs a value") }
                try flag.apply(&state, value, name)
            }
        }
    }

    /// The summary, then every flag in declaration order, then the epilogue.
    package var helpText: String {
        // A flag shows its short name and first long one; other names (say's) follow its help.
        let labels = flags.map { flag in
            let short = flag.names.first { !$0.hasPrefix("--") }
            let long = flag.names.first { $0.hasPrefix("--") }
            let names = (short.map { $0 + (long == nil ? "" : ", ") } ?? "    ") + (long ?? "")
            return names + (flag.value.map { " " + $0 } ?? "")
        }
        // Wide labels wrap their help onto the next line, so one long flag does not push every line.
        let column = min(labels.map(\.count).max() ?? 0, 21) + 4
        var lines: [String] = []
        for (label, flag) in zip(labels, flags) {
            var helpLines = flag.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let shown = [flag.names.first { !$0.hasPrefix("--") }, flag.names.first { $0.hasPrefix("--") }]
            let others = flag.names.filter { !shown.contains($0) }
            if !others.isEmpty { helpLines.append("(also " + others.joined(separator: ", ") + ")") }
            let indent = String(repeating: " ", count: column)
            if label.count + 4 > column {
                lines.append("  " + label)
            } else {
                let first = helpLines.removeFirst()
                lines.append("  " + label + String(repeating: " ", count: column - 2 - label.count) + first)
            }
            lines += helpLines.map { indent + $0 }
        }
        let options = "options:\n" + lines.joined(separator: "\n")
        return [summary, options, epilogue].filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}

extension CommandFlags.Flag {
    package typealias Apply = (inout State, String) throws -> Void

    /// A flag that takes a value.
    package static func value(_ names: String..., value: String, help: String, apply: @escaping Apply) -> Self {
        Self(names: names, value: value, help: help) { state, text, _ in try apply(&state, text) }
    }

    /// A flag that takes a value and names itself in its errors.
    package static func named(
        _ names: String..., value: String, help: String,
        apply: @escaping (inout State, _ value: String, _ name: String) throws -> Void
    ) -> Self {
        Self(names: names, value: value, help: help, apply: apply)
    }

    /// A flag that takes no value.
    package static func `switch`(_ names: String..., help: String, apply: @escaping (inout State) throws -> Void)
        -> Self
    {
        Self(names: names, value: nil, help: help) { state, _, _ in try apply(&state) }
    }

    /// A whole number in `range`; anything else is refused naming `what` and the range.
    package static func number(
        _ names: String..., value: String, in range: ClosedRange<Int>, what: String, help: String,
        apply: @escaping (inout State, Int) throws -> Void
    ) -> Self {
        Self(names: names, value: value, help: help) { state, text, _ in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    "\(what) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            try apply(&state, number)
        }
    }
}
