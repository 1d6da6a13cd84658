import Foundation
import SpeakKit

/// Long audio in windows of at most 30 s: where each starts and ends (steady sound skipped, a cut at
/// a pause), its samples at 16 kHz as floats, and its segments placed on the whole recording's clock.
extension WhisperTranscriber {
    /// One window's result, times in whisper's centiseconds from the window's start.
    struct WindowSegment {
        var t0: Int
        var t1: Int
        var text: String
        var words: [Transcript.Word]
    }

    func transcribeWindows(
        _ audio: PCMBuffer, options: TranscriptionOptions, language: String?, lease: WhisperStatePool.Lease
    ) throws(WhisperError) -> Transcript {
        let rate = Self.sampleRate
        let total = Self.index(audio.samples.count, from: audio.sampleRate, to: rate)
        let window = Self.windowSeconds * rate
        var language = language
        var segments: [Transcript.Segment] = []
        var words: [Transcript.Word] = []
        var heard = ""
        var previous: [WindowSegment] = []
        let steady = SteadySound(audio)
        var start = 0
        while start < total {
            // A window starts where there is sound, a little before it: steady sound is not decoded.
            let source = Self.index(start, from: rate, to: audio.sampleRate)
            guard let sound = steady.nextSound(from: source) else { break }
            if sound > source {
                start = max(start, Self.index(sound, from: audio.sampleRate, to: rate) - Self.leadBeforeSound)
            }
            // It ends at a long pause: decoded on, the pause got the window's words again.
            let pause = steady.nextPause(from: sound).map { pause in
                Self.index(pause, from: audio.sampleRate, to: rate) + Self.leadBeforeSound
            }
            let end = min(start + window, total, pause ?? total)
            // A window that ends at the recording's end or at a pause has nothing cut off.
            let isWhole = end == total || end < start + window
            var pcm = Self.floats(audio, from: start, to: end)
            // whisper ignores less than 100 ms; a short last piece gets a little silence after it.
            if isWhole, pcm.count < rate { pcm += [Float](repeating: 0, count: rate - pcm.count) }
            var prompt = options.prompt ?? ""
            if let phrases = options.expectedPhrases, options.prompt == nil {
                // Spelling the answers in the prompt makes whisper write them the same way.
                prompt = phrases.joined(separator: ", ") + "."
            }
            let grammar = options.expectedPhrases.flatMap { phrases in
                configuration.phraseMode == .grammar ? PhraseGrammar(phrases: phrases) : nil
            }
            let (found, detected) = try decode(
                pcm, lease: lease, language: language, prompt: prompt, previous: previous, grammar: grammar,
                options: options, singlePass: !isWhole)
            language = language ?? detected
            let length = (end - start) / (rate / 100)
            let (kept, advance) = isWhole ? (found.count, length) : Self.cut(found, windowLength: length)
            previous = Array(found.prefix(kept))
            let offset = Double(start) / Double(rate)
            let duration = Double(total) / Double(rate)
            for segment in found.prefix(kept) {
                let text = segment.text.trimmingCharacters(in: .whitespaces)
                guard !Self.isNonSpeech(text) else { continue }
                segments.append(
                    Transcript.Segment(
                        start: min(duration, offset + Double(segment.t0) / 100),
                        end: min(duration, offset + Double(max(segment.t0, segment.t1)) / 100), text: text))
                if options.expectedPhrases == nil { options.onSegment?(segments[segments.count - 1]) }
                words += segment.words.map { word in
                    Transcript.Word(
                        start: min(duration, offset + word.start), end: min(duration, offset + word.end),
                        text: word.text, probability: word.probability)
                }
                heard += heard.isEmpty ? text : " " + text
            }
            start = isWhole ? end : start + advance * (rate / 100)
            options.progress?(min(1, Double(start) / Double(max(total, 1))))
        }
        if start < total { options.progress?(1) }
        return Transcript(text: heard, duration: audio.duration, segments: segments, language: language, words: words)
    }

    /// Sample `index` at rate `from` as an index at rate `to`.
    static func index(_ index: Int, from: Int, to: Int) -> Int {
        from == to ? index : Int(Int64(index) * Int64(to) / Int64(from))
    }

    /// Whether a segment's text says nothing: empty, or no letter or digit ("...", "-").
    static func isNonSpeech(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    /// For a window that is not the last: the segments to keep and where the next window starts
    /// (centiseconds). A segment running into the window's end may have lost its last word there,
    /// so it is decoded again at the start of the next window, as whisper itself seeks.
    static func cut(_ segments: [WindowSegment], windowLength: Int) -> (Int, Int) {
        guard let last = segments.last else { return (0, windowLength) }
        let minimum = 100
        let incomplete = last.t1 <= last.t0 || last.t1 >= windowLength - 20
        if incomplete, last.t0 >= minimum { return (segments.count - 1, last.t0) }
        if !incomplete, last.t1 >= minimum { return (segments.count, last.t1) }
        return (segments.count, windowLength)
    }

    /// Samples `from..<to` of the audio at 16 kHz (indices at that rate) as floats in -1...1.
    static func floats(_ audio: PCMBuffer, from: Int, to: Int) -> [Float] {
        let rate = sampleRate
        if audio.sampleRate == rate {
            return audio.samples[from..<to].map { Float($0) / 32768 }
        }
        let first = index(from, from: rate, to: audio.sampleRate)
        let last = min(audio.samples.count, index(to, from: rate, to: audio.sampleRate) + 2)
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: rate)
        var converted = audio.samples.withUnsafeBufferPointer { all in
            resampler.process(UnsafeBufferPointer(rebasing: all[first..<max(first, last)]))
        }
        converted += resampler.finish()
        let count = to - from
        if converted.count < count { converted += [Int16](repeating: 0, count: count - converted.count) }
        return converted.prefix(count).map { Float($0) / 32768 }
    }
}
