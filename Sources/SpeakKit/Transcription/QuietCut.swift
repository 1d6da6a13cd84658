/// Where to cut long audio into pieces: in its quietest moment near the point asked for, so a
/// word is not split between two transcriptions.
public enum QuietCut {
    /// 20 ms of samples: the unit in which silences are looked for.
    public static func window(_ sampleRate: Int) -> Int { max(1, sampleRate / 50) }

    /// The middle of the `window`-sample stretch with the least energy whose middle lies in
    /// `candidates`, stepping half a window at a time; the one nearest `target` on ties.
    public static func quietest(in candidates: ClosedRange<Int>, near target: Int, of samples: [Int16], window: Int)
        -> Int
    {
        let step = max(1, window / 2)
        var best = (energy: Double.infinity, distance: Int.max, cut: target)
        var middle = candidates.lowerBound
        while middle <= candidates.upperBound {
            let start = max(0, middle - window / 2)
            let end = min(samples.count, start + window)
            var energy = 0.0
            for index in start..<end { energy += Double(samples[index]) * Double(samples[index]) }
            energy /= Double(max(1, end - start))
            let distance = abs(middle - target)
            if energy < best.energy || (energy == best.energy && distance < best.distance) {
                best = (energy, distance, middle)
            }
            middle += step
        }
        return best.cut
    }
}
