internal import CEspeakNG
import FoundationEssentials
import Glibc

/// One clause of espeak-ng's IPA, as Piper's phonemiser sees it: the phonemes, the punctuation
/// that ended the clause (`.`, `?`, `!`, `,`, `:`, `;` or nothing) and whether it ends a sentence.
public struct EspeakPhonemeClause: Sendable, Equatable {
    public var phonemes: String
    public var terminator: String
    public var endsSentence: Bool

    public init(phonemes: String, terminator: String, endsSentence: Bool) {
        self.phonemes = phonemes
        self.terminator = terminator
        self.endsSentence = endsSentence
    }
}

extension EspeakSynthesizer {
    /// `text` as IPA, clause by clause, from `espeak_TextToPhonemes` in espeak-ng voice `voice`
    /// (e.g. `en-us`): what neural voices trained on espeak-ng phonemes (Piper's) are fed.
    ///
    /// espeak-ng 1.51 reports neither the clause's punctuation nor its type, and leaves the text
    /// pointer one character into the next clause (that character's phonemes are in the next
    /// clause all the same), so the punctuation is recovered from the text the clause consumed.
    public func phonemeClauses(_ text: String, voice: String) throws -> [EspeakPhonemeClause] {
        let bytes = Array(text.utf8) + [0]
        return try lock.withLock { () throws(EspeakError) -> [EspeakPhonemeClause] in
            try selectVoice(voice)
            return bytes.withUnsafeBufferPointer { buffer in
                let start = UnsafeRawPointer(buffer.baseAddress!)
                var clauses: [EspeakPhonemeClause] = []
                var pointer: UnsafeRawPointer? = start
                while let before = pointer {
                    let ipa = api.TextToPhonemes(&pointer, espeakCHARS_UTF8, 0x02).map { String(cString: $0) } ?? ""
                    let end = pointer ?? start + (buffer.count - 1)
                    let consumed = UnsafeBufferPointer(
                        start: before.assumingMemoryBound(to: UInt8.self), count: max(0, end - before))
                    let (terminator, endsSentence) = Self.clauseEnd(
                        String(decoding: consumed, as: UTF8.self), readAhead: pointer != nil)
                    clauses.append(
                        EspeakPhonemeClause(
                            phonemes: ipa, terminator: terminator, endsSentence: endsSentence || pointer == nil))
                    if let next = pointer, next <= before { break }  // no progress: never loop
                }
                return clauses
            }
        }
    }

    /// The punctuation that ends a clause whose text (plus, with `readAhead`, the next clause's
    /// first character) is `consumed`, as Piper's patched espeak-ng names it.
    static func clauseEnd(_ consumed: String, readAhead: Bool) -> (terminator: String, endsSentence: Bool) {
        var scalars = Array(consumed.unicodeScalars)
        if readAhead, !scalars.isEmpty { scalars.removeLast() }
        var newlines = 0
        let closers: Set<Unicode.Scalar> = ["\"", "'", ")", "]", "}", "”", "’", "»"]
        while let last = scalars.last, last.properties.isWhitespace || closers.contains(last) {
            if last == "\n" { newlines += 1 }
            scalars.removeLast()
        }
        guard let last = scalars.last else { return ("", newlines >= 2) }
        switch last {
        case ".":
            // An ellipsis ends no clause type Piper names.
            if scalars.count >= 2, scalars[scalars.count - 2] == "." { return ("", newlines >= 2) }
            return (".", true)
        case "?", "!": return (String(last), true)
        case ",", ":", ";": return (String(last), false)
        case "…": return ("", newlines >= 2)
        default: return ("", newlines >= 2)
        }
    }
}
