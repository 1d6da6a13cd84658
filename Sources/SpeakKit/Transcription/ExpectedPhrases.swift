/// Matching what Whisper heard to one of the answers a caller expects (`--expect "yes|no|cancel"`).
///
/// Whisper writes what it hears freely ("Yes.", "No, thanks", "Cancel it"); the caller wants exactly
/// one of its phrases or nothing. Both sides are normalised (case, punctuation, spacing); then
///  1. a phrase equal to the heard text wins;
///  2. else the longest phrase whose words appear in the heard words, if no other phrase of another
///     meaning appears too ("no, cancel" is ambiguous: nothing);
///  3. else the phrase closest by character edit distance, if within `tolerance` of the longer
///     length and clearly closer than the runner-up.
public enum ExpectedPhrases {
    /// How far (edit distance over length) the heard text may be from a phrase and still be it.
    public static let defaultTolerance = 0.34

    public static func closest(to heard: String, among phrases: [String], tolerance: Double) -> String? {
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

    /// `transcript` made the answer: its text the closest phrase (or nothing), one segment over
    /// what was heard, and only the words that say the phrase (none when it matched loosely).
    public static func answer(_ transcript: Transcript, among phrases: [String], tolerance: Double) -> Transcript {
        var answered = transcript
        answered.segments = []
        answered.words = []
        guard let answer = closest(to: transcript.text, among: phrases, tolerance: tolerance) else {
            answered.text = ""
            return answered
        }
        answered.text = answer
        if let first = transcript.segments.first, let last = transcript.segments.last {
            answered.segments = [Transcript.Segment(start: first.start, end: last.end, text: answer)]
        }
        let wanted = words(answer)
        let heard = transcript.words.map { words($0.text) }
        for start in heard.indices {
            var run: [String] = []
            var end = start
            while end < heard.count, run.count < wanted.count {
                run += heard[end]
                end += 1
            }
            if run == wanted {
                answered.words = Array(transcript.words[start..<end])
                break
            }
        }
        return answered
    }

    /// Lowercase words: letters, digits and apostrophes; everything else separates.
    public static func words(_ text: String) -> [String] {
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
