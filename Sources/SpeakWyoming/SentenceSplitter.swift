/// Cuts text that arrives in pieces (an LLM's reply, word by word) into sentences, so each can
/// be spoken as soon as it is complete.
///
/// A sentence ends at `.`, `!`, `?` (or their CJK forms, or `…`), with any closing quotes and
/// brackets, once whitespace follows; or at a blank line. A full stop after a single letter or a
/// number (`e.g.`, `3.5`, `J. Smith`) does not end one.
public struct SentenceSplitter: Sendable {
    private var pending = ""

    public init() {}

    /// Adds `text` and returns the sentences it completed, trimmed.
    public mutating func add(_ text: String) -> [String] {
        // What is pending ends no sentence, but its last characters may, once more text comes (a
        // full stop waiting for its space, a newline for the next): only they are scanned again,
        // so a long stream of small pieces costs its length, not its length squared.
        var resume = pending.endIndex
        if resume > pending.startIndex { resume = pending.index(before: resume) }
        while resume > pending.startIndex, Self.mayEndLater(pending[pending.index(before: resume)]) {
            resume = pending.index(before: resume)
        }
        let offset = pending.utf8.distance(from: pending.startIndex, to: resume)
        pending += text
        var start = pending.utf8.index(pending.startIndex, offsetBy: offset)
        var sentences: [String] = []
        while let end = endOfFirstSentence(in: pending, from: start) {
            let sentence = pending[..<end].trimmingWhitespace
            pending = String(pending[end...])
            start = pending.startIndex
            if !sentence.isEmpty { sentences.append(sentence) }
        }
        return sentences
    }

    /// Characters scanned for sentence ends so far (the tests' window into the cost).
    private(set) var scanned = 0

    private static func mayEndLater(_ character: Character) -> Bool {
        terminators.contains(character) || closers.contains(character) || character == "\n"
    }

    /// What is left when the text ends: the last sentence, if it has any words.
    public mutating func finish() -> String? {
        defer { pending = "" }
        let rest = pending.trimmingWhitespace
        return rest.isEmpty ? nil : rest
    }

    private static let terminators: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]
    private static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "»"]

    /// The index just after the first complete sentence's end at or after `start`, if the text has
    /// one yet.
    private mutating func endOfFirstSentence(in text: String, from start: String.Index) -> String.Index? {
        var index = start
        while index < text.endIndex {
            scanned += 1
            let character = text[index]
            if character == "\n", let next = text.index(index, offsetBy: 1, limitedBy: text.endIndex),
                next < text.endIndex,
                text[next] == "\n"
            {
                return next
            }
            if Self.terminators.contains(character) {
                var end = text.index(after: index)
                while end < text.endIndex, Self.terminators.contains(text[end]) || Self.closers.contains(text[end]) {
                    end = text.index(after: end)
                }
                // Whitespace must follow: until it arrives, the next piece may go on with `.5`.
                if end < text.endIndex, text[end].isWhitespace,
                    !(character == "." && Self.isAbbreviation(before: index, in: text))
                {
                    return end
                }
                if "。！？".contains(character), end < text.endIndex { return end }
                index = end
                continue
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A full stop after a lone letter or digits (`e.g.`, `No. 3`-style numbers, initials).
    private static func isAbbreviation(before index: String.Index, in text: String) -> Bool {
        var wordStart = index
        while wordStart > text.startIndex, !text[text.index(before: wordStart)].isWhitespace,
            text[text.index(before: wordStart)] != "."
        {
            wordStart = text.index(before: wordStart)
        }
        let word = text[wordStart..<index]
        return word.count == 1 && word.first!.isLetter
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
