import SpeakKit

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
