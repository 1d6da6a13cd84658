import Foundation
import SpeakKit

/// Long audio (at 16 kHz, as every transcriber takes it) in windows of at most 30 s: where each
/// starts and ends (steady sound skipped, a cut at a pause), its samples as floats, and its segments
/// placed on the whole recording's clock.
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
        let total = audio.samples.count
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
            guard let sound = steady.nextSound(from: start) else { break }
            if sound > start { start = max(start, sound - Self.leadBeforeSound) }
            // It ends at a long pause: decoded on, the pause got the window's words again.
            let pause = steady.nextPause(from: sound).map { $0 + Self.leadBeforeSound }
            let end = min(start + window, total, pause ?? total)
            // A window that ends at the recording's end or at a pause has nothing cut off.
            let isWhole = end == total || end < start + window
            var pcm = audio.samples[start..<end].map { Float($0) / 32768 }
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
}
