/// A transcript as subtitles, as `speak transcribe --format srt|vtt` prints them and OpenAI's
/// `response_format` `srt` and `vtt` answer: one cue per segment.
extension Transcript {
    /// The segments, or the whole text as one cue when the transcriber gave none (an upstream
    /// that answers text only).
    public var cues: [Segment] {
        guard segments.isEmpty, !text.isEmpty else { return segments }
        return [Segment(start: 0, end: duration, text: text)]
    }

    /// SubRip (`.srt`): numbered cues, `00:01:02,345 --> 00:01:04,000`, a blank line between them.
    public var subRip: String {
        cues.enumerated().map { index, cue in
            "\(index + 1)\n\(Self.timestamp(cue.start, ",")) --> \(Self.timestamp(cue.end, ","))\n\(cue.text)\n"
        }.joined(separator: "\n")
    }

    /// WebVTT (`.vtt`): the `WEBVTT` line, then cues timed `00:01:02.345 --> 00:01:04.000`.
    public var webVTT: String {
        let cues = cues.map { "\(Self.timestamp($0.start, ".")) --> \(Self.timestamp($0.end, "."))\n\($0.text)\n" }
        return (["WEBVTT\n"] + cues).joined(separator: "\n")
    }

    /// `00:01:02,345` (SRT) or `00:01:02.345` (WebVTT).
    static func timestamp(_ seconds: Double, _ separator: String) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(milliseconds / 3_600_000, 2) + ":" + digits(milliseconds / 60_000 % 60, 2) + ":"
            + digits(milliseconds / 1000 % 60, 2) + separator + digits(milliseconds % 1000, 3)
    }
}
