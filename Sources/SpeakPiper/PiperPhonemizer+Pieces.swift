extension PiperPhonemizer {
    /// Pieces of at most `limit` code points, synthesised one at a time, so that what the model
    /// holds is bounded by the piece, not by the text: a sentence whole when it fits, else cut
    /// after its clauses; a clause that does not fit alone is cut between words, and a word that
    /// does not fit alone between phonemes (never after a stress mark, nor before a length or
    /// combining mark). Every phoneme is kept: the pieces joined give the sentences back, less the
    /// spaces at the cuts.
    public static func pieces(_ sentences: [Sentence], limit: Int) -> [String] {
        let limit = max(limit, 4)
        var pieces: [String] = []
        var piece: [Unicode.Scalar] = []
        func cut() {
            while piece.last == " " { piece.removeLast() }
            if !piece.isEmpty { pieces.append(String(String.UnicodeScalarView(piece))) }
            piece = []
        }
        for sentence in sentences {
            for clause in sentence.clauses {
                let scalars = Array(clause.unicodeScalars)
                if piece.count + scalars.count <= limit {
                    piece += scalars
                    continue
                }
                cut()
                if scalars.count <= limit {
                    piece = scalars
                    continue
                }
                for word in words(scalars) {
                    for part in parts(of: word, limit: limit) {
                        if piece.count + part.count > limit { cut() }
                        piece += part
                    }
                }
            }
            cut()
        }
        return pieces
    }

    /// The words of a clause, each with the spaces after it.
    static func words(_ scalars: [Unicode.Scalar]) -> [ArraySlice<Unicode.Scalar>] {
        var words: [ArraySlice<Unicode.Scalar>] = []
        var start = scalars.startIndex
        for index in scalars.indices.dropFirst() where scalars[index] != " " && scalars[index - 1] == " " {
            words.append(scalars[start..<index])
            start = index
        }
        if start < scalars.endIndex { words.append(scalars[start...]) }
        return words
    }

    /// `word` in parts of at most `limit` code points, cut where a phoneme ends.
    static func parts(of word: ArraySlice<Unicode.Scalar>, limit: Int) -> [ArraySlice<Unicode.Scalar>] {
        var parts: [ArraySlice<Unicode.Scalar>] = []
        var start = word.startIndex
        while word.endIndex - start > limit {
            var end = start + limit
            while end > start + 1, !canCut(word, before: end) { end -= 1 }
            if !canCut(word, before: end) { end = start + limit }
            parts.append(word[start..<end])
            start = end
        }
        parts.append(word[start...])
        return parts
    }

    /// Whether a phoneme ends before `index`: the scalar there does not belong to the one before
    /// (a length mark `ː`, a modifier such as `ʲ`, a combining mark), and the one before is not a
    /// stress mark, which belongs to the syllable after it.
    static func canCut(_ scalars: ArraySlice<Unicode.Scalar>, before index: Int) -> Bool {
        let stress: Set<Unicode.Scalar> = ["ˈ", "ˌ"]
        let next = scalars[index]
        guard !stress.contains(scalars[index - 1]) else { return false }
        if stress.contains(next) { return true }
        switch next.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .modifierLetter, .modifierSymbol: return false
        default: return true
        }
    }
}
