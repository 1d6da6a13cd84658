/// Matching what Whisper heard to one of the answers a caller expects (`--expect "yes|no|cancel"`).
///
/// Whisper writes what it hears freely ("Yes.", "No, thanks", "Cancel it"); the caller wants exactly
/// one of its phrases or nothing. Both sides are normalised (case, punctuation, spacing); then
///  1. a phrase equal to the heard text wins;
///  2. else the longest phrase whose words appear in the heard words, if no other phrase of another
///     meaning appears too ("no, cancel" is ambiguous: nothing);
///  3. else the phrase closest by character edit distance, if within `tolerance` of the longer
///     length and clearly closer than the runner-up.
enum ExpectedPhrases {
    static func closest(to heard: String, among phrases: [String], tolerance: Double) -> String? {
        let heardWords = words(heard)
        guard !heardWords.isEmpty else { return nil }
        let candidates = phrases.map { (phrase: $0, words: words($0)) }.filter { !$0.words.isEmpty }
        if let exact = candidates.first(where: { $0.words == heardWords }) { return exact.phrase }

        let contained = candidates.filter { contains(heardWords, $0.words) }
        if let longest = contained.max(by: { $0.words.count < $1.words.count }) {
            // Shorter matches inside the longest one ("no" in "no thanks") are not rivals.
            let rivals = contained.filter { !contains(longest.words, $0.words) }
            if rivals.isEmpty { return longest.phrase }
            return nil
        }

        let heardText = heardWords.joined(separator: " ")
        let scored = candidates.map { candidate -> (phrase: String, score: Double) in
            let text = candidate.words.joined(separator: " ")
            let distance = editDistance(Array(heardText), Array(text))
            return (candidate.phrase, Double(distance) / Double(max(heardText.count, text.count)))
        }.sorted { $0.score < $1.score }
        guard let best = scored.first, best.score <= tolerance else { return nil }
        if scored.count > 1, scored[1].score - best.score < 0.1 { return nil }
        return best.phrase
    }

    /// Lowercase words: letters, digits and apostrophes; everything else separates.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }

    /// Whether `needle` occurs in `haystack` as a run of whole words.
    private static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    /// Levenshtein distance by characters.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let above = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }
}

/// The expected phrases as a whisper.cpp grammar (GBNF rules, already parsed into elements):
///
///     root   ::= space answer end
///     answer ::= phrase-1 | phrase-2 | ...     (letters in either case, words one space apart)
///     end    ::= [.!?] |
///     space  ::= " " |
///
/// whisper.cpp lowers the logits of tokens the grammar rejects (by `grammar_penalty`), so the
/// decoder is steered into one of the phrases, even when the speaker said something else.
struct PhraseGrammar {
    typealias Element = (type: UInt32, value: UInt32)
    static let end: UInt32 = 0, alternative: UInt32 = 1, ruleReference: UInt32 = 2
    static let character: UInt32 = 3, characterAlternative: UInt32 = 6

    /// Rules by index; rule 0 is the root.
    let rules: [[Element]]

    init(phrases: [String]) {
        let answers = phrases.map { ExpectedPhrases.words($0).joined(separator: " ") }.filter { !$0.isEmpty }
        var answer: [Element] = []
        for (index, phrase) in answers.enumerated() {
            if index > 0 { answer.append((Self.alternative, 0)) }
            for scalar in phrase.unicodeScalars {
                answer.append((Self.character, scalar.value))
                let upper = String(scalar).uppercased().unicodeScalars
                if upper.count == 1, let other = upper.first, other != scalar {
                    answer.append((Self.characterAlternative, other.value))
                }
            }
        }
        answer.append((Self.end, 0))
        let root: [Element] = [
            (Self.ruleReference, 3), (Self.ruleReference, 1), (Self.ruleReference, 2), (Self.end, 0),
        ]
        let ending: [Element] = [
            (Self.character, 0x2E), (Self.characterAlternative, 0x21), (Self.characterAlternative, 0x3F),
            (Self.alternative, 0), (Self.end, 0),
        ]
        let space: [Element] = [(Self.character, 0x20), (Self.alternative, 0), (Self.end, 0)]
        rules = [root, answer, ending, space]
    }
}
