import SpeakKit

/// macOS speech's embedded commands, as `say` obeys them in its text: `[[slnc 500]]` (500 ms of
/// silence), `[[rate 300]]` (words per minute; `+20`/`-20` relative), `[[volm 0.5]]` (volume 0 to 1;
/// relative likewise), `[[emph +]]`/`[[emph -]]` (the next word stressed or reduced), `[[rset 0]]`
/// (back to the start), several in one as `[[rate 200; volm 0.5]]`. They become the SSML the
/// engines take: a break, prosody, emphasis. say's other commands (`pbas`, `char`, `inpt`…) are
/// dropped, not read out; brackets holding anything else are text.
package enum EmbeddedCommands {
    /// Every command say knows, so that `[[…]]` holding one is never read aloud.
    private static let known: Set<String> = [
        "slnc", "rate", "volm", "emph", "rset", "pbas", "pmod", "char", "nmbr", "inpt", "cmnt", "sync", "xtnd",
        "dlim", "ctxt",
    ]

    private enum Piece {
        case text(Substring)
        /// Each command as `(name, argument)`, the name lowercased.
        case commands([(String, Substring)])
    }

    /// `text` as SSML with its commands obeyed, speaking at `rate` words per minute unless told
    /// otherwise; `nil` when it holds no command (the text is spoken as it is).
    package static func ssml(_ text: String, rate baseRate: Int) -> String? {
        let pieces = Self.pieces(of: text)
        guard pieces.contains(where: { if case .commands = $0 { true } else { false } }) else { return nil }
        var markup = "<speak>"
        var rate = Double(baseRate)
        var volume = 1.0
        var prosodyOpen = false
        var emphasis: String?
        var spoken = false
        for piece in pieces {
            switch piece {
            case .text(let text):
                markup += emphasising(text, level: &emphasis)
                spoken = spoken || text.contains { !$0.isWhitespace }
            case .commands(let commands):
                var prosodyChanged = false
                for (name, argument) in commands {
                    switch name {
                    case "slnc":
                        if let milliseconds = Double(argument), milliseconds >= 0, milliseconds < 3_600_000 {
                            // espeak-ng drops a break that comes before any text; a zero-width
                            // space is text that says nothing, so the silence is kept.
                            if !spoken { markup += "\u{200B}" }
                            markup += "<break time=\"\(Int(milliseconds))ms\"/>"
                        }
                    case "rate":
                        if let value = number(argument, current: rate) { rate = min(max(value, 1), 1000) }
                        prosodyChanged = true
                    case "volm":
                        if let value = number(argument, current: volume) { volume = min(max(value, 0), 2) }
                        prosodyChanged = true
                    case "emph":
                        emphasis = argument.hasPrefix("-") ? "reduced" : "strong"
                    case "rset":
                        (rate, volume) = (Double(baseRate), 1)
                        prosodyChanged = true
                    default: break
                    }
                }
                guard prosodyChanged else { continue }
                // One prosody at a time, relative to the voice's: espeak-ng takes a bare number as percent.
                if prosodyOpen { markup += "</prosody>" }
                prosodyOpen = rate != Double(baseRate) || volume != 1
                if prosodyOpen {
                    let percent = Int((rate * 100 / Double(baseRate)).rounded())
                    markup += "<prosody rate=\"\(percent)%\" volume=\"\(Int((volume * 100).rounded()))%\">"
                }
            }
        }
        if prosodyOpen { markup += "</prosody>" }
        return markup + "</speak>"
    }

    /// `text` without its commands: for a server that takes no markup (`--remote`).
    package static func plainText(_ text: String) -> String {
        pieces(of: text).map { piece in
            if case .text(let text) = piece { String(text) } else { " " }
        }.joined()
    }

    /// The text between commands, and the commands.
    private static func pieces(of text: String) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(text)
        var pending = rest.startIndex
        while let open = rest.firstRange(of: "[["), let close = rest[open.upperBound...].firstRange(of: "]]") {
            let commands = rest[open.upperBound..<close.lowerBound].split(separator: ";").map { command in
                let words = command.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                return (
                    words.first.map { $0.lowercased() } ?? "",
                    words.count > 1 ? Substring(words[1].trimmingSpaces()) : ""
                )
            }
            rest = rest[close.upperBound...]
            guard !commands.isEmpty, commands.allSatisfy({ known.contains($0.0) }) else { continue }
            pieces.append(.text(text[pending..<open.lowerBound]))
            pieces.append(.commands(commands))
            pending = close.upperBound
        }
        pieces.append(.text(text[pending...]))
        return pieces
    }

    /// `+0.1`, `-20` change `current`; `0.5`, `300` replace it.
    private static func number(_ argument: Substring, current: Double) -> Double? {
        guard let value = Double(argument), value.isFinite else { return nil }
        return argument.hasPrefix("+") || argument.hasPrefix("-") ? current + value : value
    }

    /// `text` escaped for SSML, its first word wrapped in `<emphasis>` when one is `level`.
    private static func emphasising(_ text: Substring, level: inout String?) -> String {
        guard let wanted = level, let start = text.firstIndex(where: { !$0.isWhitespace }) else { return escaped(text) }
        level = nil
        let end = text[start...].firstIndex(where: \.isWhitespace) ?? text.endIndex
        return escaped(text[..<start]) + "<emphasis level=\"\(wanted)\">" + escaped(text[start..<end]) + "</emphasis>"
            + escaped(text[end...])
    }

    private static func escaped(_ text: Substring) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
