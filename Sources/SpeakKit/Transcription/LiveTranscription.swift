import Glibc

/// Text while the person speaks: audio goes in as it arrives, and out come partial text (which may
/// change) and final text (which does not), a turn at a time.
///
/// The recogniser is run again over the turn's audio each ``Settings/step`` of new speech (sooner
/// until it hears a word, so text shows early). A word is final once two decodes in a row agree on it and on
/// every word before it (the LocalAgreement policy of whisper_streaming): the last words of a
/// window, cut mid-word, change from one decode to the next, so they wait. A voice activity detector
/// ends the turn after ``Settings/silence`` of quiet and keeps silence from the recogniser; without
/// one a turn lasts until ``commit()``. The audio a decode hears is bounded: past
/// ``Settings/maximumWindow`` the window starts again after the last final word, whose text goes
/// along as the prompt, so a speaker who never pauses costs the same each step.
///
/// The session keeps pace with the wall clock. Audio that arrives faster than real time (a file,
/// a recording sent at once) has nobody watching it form, so it is decoded only at turn ends and
/// where the window must be bounded, about as often as offline. A recogniser slower than the step
/// waits for more speech between decodes, so the session never falls further behind.
///
/// Not thread-safe: one session is fed from one thread, as a connection's events arrive.
public final class LiveTranscription {
    public struct Settings: Sendable, Equatable {
        /// Seconds of new speech between decodes.
        public var step = 1.0
        /// Seconds of speech before the first decode of a turn, and between decodes until one hears a word.
        public var firstStep = 0.5
        /// Seconds of quiet that end a turn (OpenAI's `silence_duration_ms`, 500 by default).
        public var silence = 0.5
        /// Seconds of audio kept from before speech was detected (`prefix_padding_ms`, 300).
        public var padding = 0.3
        /// The detector's probability from which a frame is speech (`threshold`, 0.5).
        public var threshold = 0.5
        /// The most audio one decode hears, in seconds.
        public var maximumWindow = 15.0
        /// Seconds of a turn a decode hears before the language it detected (when none was asked
        /// for) is kept for the rest of the session.
        public var languageAfter = 3.0

        public init() {}
    }

    public enum Event: Sendable, Equatable {
        /// Speech began, at this many seconds into the session (the padding included).
        case speechStarted(at: Double)
        /// The turn's speech ended (where the quiet began).
        case speechStopped(at: Double)
        /// Words now final, to append (after a space) to the turn's text so far.
        case final(String)
        /// The words after the final ones as heard so far; the next partial replaces it.
        case partial(String)
        /// The turn's whole text, every word of it final; seconds into the session.
        case completed(text: String, start: Double, end: Double)
    }

    public let settings: Settings
    public var options: TranscriptionOptions
    private let transcriber: any Transcriber
    private let detector: (any VoiceActivityDetector)?
    private var converter: PCMConverter
    /// Samples taken so far: the session's clock, at 16 kHz.
    private var clock = 0
    /// Samples not yet judged by the detector: less than a frame.
    private var unjudged: [Int16] = []
    /// The last ``Settings/padding`` of audio before speech, while there is no turn.
    private var lookback: [Int16] = []
    private var turn: Turn?
    /// Seconds on a steady clock (``steadyClock`` but in tests).
    private let now: () -> Double
    /// When the first audio came, on `now`'s clock.
    private var firstAudioAt: Double?
    /// Seconds the last decode took, on `now`'s clock.
    private var lastDecodeCost = 0.0
    /// The end of the text of the turns so far: what a decode is told came before its audio.
    private var context = ""

    private struct Turn {
        /// Where the turn began and where `window` begins, in samples of the session.
        var start: Int
        var windowStart: Int
        var window: [Int16] = []
        var final: [Transcript.Word] = []
        /// The last decode's words after the final ones, waiting for the next to agree.
        var tentative: [Transcript.Word] = []
        var partial = ""
        var sinceDecode = 0
        /// Samples of quiet at the end of the window.
        var quiet = 0
    }

    public init(
        transcriber: any Transcriber, format: PCMFormat, options: TranscriptionOptions = .init(),
        detector: (any VoiceActivityDetector)?, settings: Settings = .init(),
        now: @escaping () -> Double = LiveTranscription.steadyClock
    ) {
        self.now = now
        self.transcriber = transcriber
        self.options = options
        self.detector = detector
        self.settings = settings
        converter = PCMConverter(format)
    }

    /// Seconds of audio taken.
    public var seconds: Double { Self.seconds(clock) }

    /// Whether a turn is under way (speech was heard and has not ended).
    public var isSpeaking: Bool { turn != nil }

    /// Raw PCM in the session's format; the events it brings about, in order. The transcriber's
    /// errors pass as they are.
    public func append(_ bytes: [UInt8]) throws -> [Event] { try take(converter.convert(bytes)) }

    /// Ends the turn now (OpenAI's `input_audio_buffer.commit`): its words all final, and
    /// `completed`. Nothing without a turn.
    public func commit() throws -> [Event] {
        guard turn != nil else { return [] }
        return try endTurn(stoppedAt: clock)
    }

    /// Drops the turn's audio untranscribed (`input_audio_buffer.clear`).
    public func clear() {
        turn = nil
        lookback = []
        detector?.reset()
    }

    /// The end of the audio: the last samples taken and the turn, if any, ended.
    public func finish() throws -> [Event] {
        var events = try take(converter.finish())
        if !unjudged.isEmpty, turn != nil {
            turn!.window += unjudged
            clock += unjudged.count
            unjudged = []
        }
        events += try commit()
        return events
    }

    // MARK: - Turns

    private func take(_ samples: [Int16]) throws -> [Event] {
        if firstAudioAt == nil, !samples.isEmpty { firstAudioAt = now() }
        guard let detector else {
            if turn == nil, !samples.isEmpty { turn = Turn(start: clock, windowStart: clock) }
            clock += samples.count
            turn?.window += samples
            turn?.sinceDecode += samples.count
            return try decodeIfDue()
        }
        var events: [Event] = []
        unjudged += samples
        let length = detector.frameLength
        var used = 0
        while unjudged.count - used >= length {
            let frame = unjudged[used..<(used + length)]
            used += length
            let probability = try detector.speechProbability(frame)
            events += try judge(frame, speech: probability >= settings.threshold, quiet: probability < quietBelow)
        }
        unjudged.removeFirst(used)
        return events
    }

    /// Below this a frame is quiet: the hysteresis Silero's own iterator uses.
    private var quietBelow: Double { max(0.01, settings.threshold - 0.15) }

    private func judge(_ frame: ArraySlice<Int16>, speech: Bool, quiet: Bool) throws -> [Event] {
        defer { clock += frame.count }
        guard turn != nil else {
            guard speech else {
                lookback += frame
                let keep = Int(settings.padding * Double(TranscriptionEngine.sampleRate))
                if lookback.count > keep { lookback.removeFirst(lookback.count - keep) }
                return []
            }
            let start = clock - lookback.count
            turn = Turn(start: start, windowStart: start, window: lookback + frame, sinceDecode: lookback.count)
            turn!.sinceDecode += frame.count
            lookback = []
            return [.speechStarted(at: Self.seconds(start))] + (try decodeIfDue())
        }
        turn!.window += frame
        turn!.sinceDecode += frame.count
        turn!.quiet = quiet ? turn!.quiet + frame.count : 0
        if turn!.quiet >= Int(settings.silence * Double(TranscriptionEngine.sampleRate)) {
            let stopped = clock + frame.count - turn!.quiet
            // The quiet is not speech: the recogniser does not hear it, beyond a padding's worth.
            let padding = Int(settings.padding * Double(TranscriptionEngine.sampleRate))
            // (A window restarted after a final word whose time fell in the quiet holds less.)
            turn!.window.removeLast(min(turn!.window.count, max(0, turn!.quiet - padding)))
            return try endTurn(stoppedAt: stopped)
        }
        return try decodeIfDue()
    }

    /// The turn ended at `stoppedAt`: one last decode of its window, whose words are all final.
    private func endTurn(stoppedAt stopped: Int) throws -> [Event] {
        var events: [Event] = detector == nil ? [] : [.speechStopped(at: Self.seconds(stopped))]
        var current = turn!
        turn = nil
        lookback = []
        detector?.reset()
        if !current.window.isEmpty {
            let words = try decode(&current, endingTurn: true)
            if !words.isEmpty {
                current.final += words
                events.append(.final(Self.text(words)))
            }
        }
        let text = Self.text(current.final)
        context = Self.said(context, then: text)
        events.append(
            .completed(
                text: text, start: Self.seconds(current.start),
                end: Self.seconds(max(stopped, current.start))))
        return events
    }

    // MARK: - Decoding

    private func decodeIfDue() throws -> [Event] {
        guard var current = turn else { return [] }
        let rate = Double(TranscriptionEngine.sampleRate)
        // Until a decode hears a word (the first often hears too little speech), the first step.
        let step = current.final.isEmpty && current.tentative.isEmpty ? settings.firstStep : settings.step
        // Half again what a decode costs: the recogniser gets ahead each time instead of behind.
        guard Double(current.sinceDecode) >= max(step, lastDecodeCost * 1.5) * rate else { return [] }
        if isAhead, Double(current.window.count) <= settings.maximumWindow * rate { return [] }
        var events: [Event] = []
        let heard = try decode(&current)
        // LocalAgreement: what this decode and the last agree on, word by word from the start, is final.
        var agreed = 0
        while agreed < min(heard.count, current.tentative.count),
            Self.same(heard[agreed], current.tentative[agreed])
        {
            agreed += 1
        }
        if agreed > 0 {
            current.final += heard[..<agreed]
            events.append(.final(Self.text(Array(heard[..<agreed]))))
        }
        current.tentative = Array(heard[agreed...])
        let partial = Self.text(current.tentative)
        if partial != current.partial || agreed > 0 {
            current.partial = partial
            events.append(.partial(partial))
        }
        events += bound(&current)
        turn = current
        return events
    }

    /// Whether the audio taken runs ahead of the wall clock by more than a step: it is being sent
    /// faster than anyone speaks.
    private var isAhead: Bool {
        guard let firstAudioAt else { return false }
        return seconds - (now() - firstAudioAt) > settings.step
    }

    /// Keeps the window within ``Settings/maximumWindow``: it starts again after the last final
    /// word; if no word is final there, the tentative ones but the last (which the window may cut
    /// short, and the next window hears whole) are made final first.
    private func bound(_ current: inout Turn) -> [Event] {
        let rate = Double(TranscriptionEngine.sampleRate)
        guard Double(current.window.count) / rate > settings.maximumWindow else { return [] }
        var events: [Event] = []
        var end = current.final.last.map { Int($0.end * rate) } ?? current.windowStart
        if end <= current.windowStart + Int(rate), !current.tentative.isEmpty {
            let settled = Array(current.tentative.dropLast(current.tentative.count > 1 ? 1 : 0))
            current.final += settled
            current.tentative.removeFirst(settled.count)
            current.partial = Self.text(current.tentative)
            events += [.final(Self.text(settled)), .partial(current.partial)]
            end = Int(settled.last!.end * rate)
        }
        // Nothing heard at all: keep the newest half, in case it is the start of a word.
        if end <= current.windowStart { end = current.windowStart + current.window.count / 2 }
        let drop = min(current.window.count, end - current.windowStart)
        current.window.removeFirst(drop)
        current.windowStart += drop
        // Words the window no longer holds the start of are settled.
        current.tentative.removeAll { Int($0.start * rate) < current.windowStart }
        return events
    }

    /// The words after the final ones that the window now holds, in seconds of the session.
    private func decode(_ current: inout Turn, endingTurn: Bool = false) throws -> [Transcript.Word] {
        current.sinceDecode = 0
        var options = options
        options.wordTimestamps = true
        // Its words wait for the next decode to agree, but the turn's last decode, which settles
        // the rest, hears as an offline one does.
        options.interim = !endingTurn
        // The text before the window (the turns before, and the turn's final words the window
        // no longer holds), as whisper_streaming passes it and as offline windows carry the one
        // before: what was said, not audio, so a turn is heard in the light of the last.
        let before = current.final.filter {
            $0.end * Double(TranscriptionEngine.sampleRate) <= Double(current.windowStart)
        }
        let said = Self.said(context, then: Self.text(before))
        if !said.isEmpty { options.prompt = options.prompt.map { $0 + " " + said } ?? said }
        let offset = Self.seconds(current.windowStart)
        let began = now()
        let transcript = try transcriber.transcribe(
            PCMBuffer(sampleRate: TranscriptionEngine.sampleRate, samples: current.window), options: options)
        lastDecodeCost = now() - began
        // Whisper detects the language over its whole 30 s window, several times what a window
        // fitted to the speech costs: once a decode has heard enough to tell, the session keeps it.
        if self.options.language == nil, let language = transcript.language,
            endingTurn || Self.seconds(current.window.count) >= settings.languageAfter
        {
            self.options.language = language
        }
        var words = Self.words(of: transcript).map {
            Transcript.Word(start: $0.start + offset, end: $0.end + offset, text: $0.text, probability: $0.probability)
        }
        // The final words the window still holds are heard again: which heard words they are is
        // told by text, since Whisper's word times move from one decode to the next.
        let rate = Double(TranscriptionEngine.sampleRate)
        let held = current.final.filter { $0.end * rate > Double(current.windowStart) }
        if !held.isEmpty {
            words.removeFirst(Self.heardAgain(held, in: words))
            return words
        }
        // A window that starts after the last final word: only a word that straddles its end can
        // be it heard again; a repeated phrase further on is new speech.
        let settled = current.final.last?.end ?? 0
        words.removeAll { ($0.start + $0.end) / 2 < settled }
        let tail = current.final.suffix(5)
        let straddling = words.prefix { $0.start < settled + 0.1 }.count
        for count in stride(from: min(tail.count, straddling), to: 0, by: -1)
        where zip(tail.suffix(count), words.prefix(count)).allSatisfy(Self.same) {
            words.removeFirst(count)
            break
        }
        return words
    }

    /// Characters of the text before a window that a decode is given.
    static let contextLength = 200

    /// The last ``contextLength`` characters of `earlier` and then `later`, a space between.
    private static func said(_ earlier: String, then later: String) -> String {
        String([earlier, later].filter { !$0.isEmpty }.joined(separator: " ").suffix(contextLength))
    }

    /// How many of `heard`'s first words are `held` heard again: the prefix closest to `held` in
    /// word edits (a word heard differently, dropped or split), of equally close ones the one that
    /// ends nearest to where `held` ends.
    static func heardAgain(_ held: [Transcript.Word], in heard: [Transcript.Word]) -> Int {
        // distance[j]: edits between the held words so far and heard's first j words.
        var distance = Array(0...heard.count)
        for (i, word) in held.enumerated() {
            var next = [i + 1]
            for (j, other) in heard.enumerated() {
                next.append(min(distance[j] + (same(word, other) ? 0 : 1), distance[j + 1] + 1, next[j] + 1))
            }
            distance = next
        }
        let end = held.last!.end
        return (0...heard.count).min { a, b in
            guard distance[a] == distance[b] else { return distance[a] < distance[b] }
            return abs((a == 0 ? held[0].start : heard[a - 1].end) - end)
                < abs((b == 0 ? held[0].start : heard[b - 1].end) - end)
        }!
    }

    /// A transcript's words with times: its own, else its segments' words spread over each segment.
    static func words(of transcript: Transcript) -> [Transcript.Word] {
        if !transcript.words.isEmpty { return transcript.words.filter { $0.text.contains { !$0.isWhitespace } } }
        let segments =
            transcript.segments.isEmpty
            ? [Transcript.Segment(start: 0, end: transcript.duration, text: transcript.text)] : transcript.segments
        return segments.flatMap { segment -> [Transcript.Word] in
            let texts = segment.text.split(whereSeparator: \.isWhitespace).map(String.init)
            let each = (segment.end - segment.start) / Double(max(1, texts.count))
            return texts.enumerated().map { index, text in
                let start = segment.start + Double(index) * each
                return Transcript.Word(start: start, end: start + each, text: text)
            }
        }
    }

    /// The same word, whatever its case and punctuation.
    static func same(_ a: Transcript.Word, _ b: Transcript.Word) -> Bool { key(a.text) == key(b.text) }

    private static func key(_ text: String) -> String {
        text.lowercased().filter { !$0.isPunctuation && !$0.isWhitespace }
    }

    static func text(_ words: [Transcript.Word]) -> String {
        words.map { $0.text.filter { !$0.isWhitespace } }.joined(separator: " ")
    }

    /// Seconds since some fixed moment, never stepping back.
    public static func steadyClock() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ samples: Int) -> Double { Double(samples) / Double(TranscriptionEngine.sampleRate) }
}
