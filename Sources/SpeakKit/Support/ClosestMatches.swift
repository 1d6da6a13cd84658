/// The candidates closest to `input` by edit distance (case-insensitive), nearest first, for
/// "did you mean" hints; only those within a few edits of it.
public func closestMatches(to input: String, among candidates: [String], limit: Int) -> [String] {
    let input = input.lowercased()
    let tolerance = max(2, input.count / 2)
    let scored: [(name: String, distance: Int)] = candidates.map { ($0, editDistance($0.lowercased(), input)) }
    // Ties by name, so the hint is the same on every run (the candidates may come from a dictionary).
    let ranked = scored.filter { $0.distance <= tolerance }.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
    return ranked.prefix(limit).map(\.name)
}

/// Levenshtein distance between two strings, by characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var diagonal = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let above = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
            diagonal = above
        }
    }
    return row[b.count]
}
