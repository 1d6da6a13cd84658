import Foundation
import Glibc
import SpeakCLI
import SpeakKit

/// `--live`: a live session's events as the command line shows them. On a terminal the current
/// line is rewritten, the final words followed by the partial ones (dimmed), and a completed turn
/// ends its line; elsewhere (a pipe, a file) each completed turn is one plain line and nothing else
/// is written; `--json` writes every event, one a line. Every write goes out at once, unbuffered.
final class LiveCaptions {
    enum Style {
        case terminal, lines, json

        /// JSON when asked for, else the terminal's rewritten line or plain lines, by `descriptor`.
        static func of(json: Bool, descriptor: Int32) -> Style {
            json ? .json : isatty(descriptor) == 1 ? .terminal : .lines
        }
    }

    let style: Style
    /// Each completed turn's text, those that have any.
    private(set) var turns: [String] = []
    private let session: LiveTranscription
    private let descriptor: Int32
    /// The turn under way, on a terminal: its final words, and the partial ones after them.
    private var final = ""
    private var partial = ""

    init(session: LiveTranscription, style: Style, descriptor: Int32 = STDOUT_FILENO) {
        self.session = session
        self.style = style
        self.descriptor = descriptor
    }

    /// 16 kHz samples as they arrive.
    func append(_ samples: [Int16]) throws {
        let bytes = samples.map(\.littleEndian).withUnsafeBytes { Array($0) }
        try show(session.append(bytes))
    }

    /// The end of the audio: the turn under way is completed.
    func finish() throws { try show(session.finish()) }

    // MARK: - Feeding

    /// Samples at once, between reads of 20 ms: as a microphone delivers them.
    private static let period = TranscriptionEngine.sampleRate / 50

    /// Feeds a file's 16 kHz audio at its own pace, as if it were being spoken: each sample once
    /// the clock reaches it; when the captions fall behind, all that is due in one piece.
    func play(_ audio: any DecodedAudioStream) throws {
        let rate = Double(TranscriptionEngine.sampleRate)
        let start = ProcessInfo.processInfo.systemUptime
        var fed = 0
        while true {
            let due = Int((ProcessInfo.processInfo.systemUptime - start) * rate) - fed
            guard due >= Self.period else {
                usleep(UInt32(Double(Self.period - due) / rate * 1_000_000))
                continue
            }
            let samples = try audio.read(upTo: due)
            if samples.isEmpty { break }
            fed += samples.count
            try append(samples)
        }
        try finish()
    }

    /// Records with `options`, captioning as the recording goes (Enter or Ctrl-C stops it, as
    /// `speak record`), then captions what is left. When captioning fails the recording stops;
    /// its error says where the recording is kept.
    func caption(recording options: Recorder.Options) throws -> Recording {
        let queue = SampleQueue()
        let recorder = Recorder(options: options, onAudio: { queue.push($0) })
        let recording = Loading {
            defer { queue.close() }
            return try RecordCommand.record(recorder, meter: false)
        }
        do {
            while let samples = queue.take() { try append(samples) }
            try finish()
        } catch {
            recorder.stop()
            let (code, message) = ExitCode.report(error)
            let kept = (try? recording.value()).map { " (the recording is kept at \($0.url.path))" } ?? ""
            throw InputError(code: code, message: "live captions failed: \(message)\(kept)")
        }
        return try recording.value()
    }

    // MARK: - Showing

    private func show(_ events: [LiveTranscription.Event]) throws {
        var changed = false
        for event in events {
            switch style {
            case .json: try write(Self.json(event, at: session.seconds).canonical + "\n")
            case .lines:
                if case .completed(let text, _, _) = event, !text.isEmpty { try write(text + "\n") }
            case .terminal:
                switch event {
                case .speechStarted, .speechStopped: break
                case .final(let text):
                    final += (final.isEmpty ? "" : " ") + text
                    changed = true
                case .partial(let text):
                    partial = text
                    changed = true
                case .completed(let text, _, _):
                    (final, partial, changed) = ("", "", false)
                    try write(Self.clearLine + (text.isEmpty ? "" : text + "\n"))
                }
            }
            if case .completed(let text, _, _) = event, !text.isEmpty { turns.append(text) }
        }
        // Drawn once the events of a decode are all in: a final one comes before the partial
        // that no longer holds its words.
        if changed {
            try write(Self.clearLine + Self.fitted(final: final, partial: partial, width: terminalWidth))
        }
    }

    /// Erases the terminal's line from its start.
    private static let clearLine = "\r\u{1B}[K"

    /// The line as it fits in `width` columns: a turn longer than that shows its end, after "…",
    /// so that the line never wraps (a wrapped line cannot be rewritten).
    static func fitted(final: String, partial: String, width: Int) -> String {
        var (final, partial) = (final, partial)
        let room = max(1, width - 1)
        let separator = final.isEmpty || partial.isEmpty ? 0 : 1
        let over = final.count + separator + partial.count - room
        if over > 0 {
            // "…" takes one column of the room.
            let cut = over + 1
            if cut <= final.count + separator {
                final = "…" + String(final.dropFirst(min(final.count, cut)))
            } else {
                partial = "…" + String(partial.dropFirst(cut - final.count - separator))
                final = ""
            }
        }
        guard !partial.isEmpty else { return final }
        return final + (final.isEmpty ? "" : " ") + "\u{1B}[2m" + partial + "\u{1B}[22m"
    }

    private var terminalWidth: Int {
        var size = winsize()
        let answered = withUnsafeMutablePointer(to: &size) { ioctl(descriptor, UInt(TIOCGWINSZ), $0) }
        return answered == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// One event as `--json` writes it: its type, its text, its times, and `time`, the seconds of
    /// audio heard when it came.
    static func json(_ event: LiveTranscription.Event, at time: Double) -> JSONValue {
        func seconds(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        var object: [String: JSONValue] =
            switch event {
            case .speechStarted(let start): ["type": "speech_started", "start": seconds(start)]
            case .speechStopped(let end): ["type": "speech_stopped", "end": seconds(end)]
            case .final(let text): ["type": "final", "text": .string(text)]
            case .partial(let text): ["type": "partial", "text": .string(text)]
            case .completed(let text, let start, let end):
                ["type": "completed", "text": .string(text), "start": seconds(start), "end": seconds(end)]
            }
        object["time"] = seconds(time)
        return .object(object)
    }

    private func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        do {
            try bytes.withUnsafeBytes { buffer in
                try SystemCall.writeAll("write", buffer) { pointer, count, _ in Glibc.write(descriptor, pointer, count)
                }
            }
        } catch let error as SystemCallError {
            let name = descriptor == STDERR_FILENO ? "standard error" : "standard output"
            throw InputError(code: .cannotCreate, message: "cannot write \(name): \(error.message)")
        }
    }
}

/// Samples handed from the recording thread to the captions: all that came since the last take,
/// so captions that fall behind catch up in one piece. Bounded by the recording's own limits.
final class SampleQueue: Sendable {
    private let queue = LockedCondition((samples: [Int16](), closed: false))

    func push(_ new: UnsafeBufferPointer<Int16>) {
        queue.change { $0.samples += new }
    }

    /// No more samples will come.
    func close() { queue.change { $0.closed = true } }

    /// Everything queued, once there is some; `nil` once closed and empty.
    func take() -> [Int16]? {
        queue.wait(
            until: { !$0.samples.isEmpty || $0.closed },
            then: { queue in
                defer { queue.samples = [] }
                return queue.samples.isEmpty ? nil : queue.samples
            })
    }
}
