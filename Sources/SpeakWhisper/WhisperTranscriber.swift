internal import CWhisper
import Foundation
import SpeakKit

/// Speech recognition with whisper.cpp, in process.
///
/// The model is loaded once per process (every transcriber of the same file shares it); each call
/// borrows a decoding state from a bounded pool, so one transcriber serves concurrent callers with
/// memory that does not grow with them. Audio is decoded in windows of at most 30 s, each handed to
/// whisper.cpp with an encoder context fitted to its length (`audio_ctx`): a 2 s answer costs a
/// 2 s encode, not whisper's fixed 30 s. Longer audio is transcribed whole, window after window,
/// only the current window converted to floats, with times relative to the whole recording.
public final class WhisperTranscriber: Transcriber, @unchecked Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Threads per call; `nil` shares the machine's cores among the calls running at that moment
        /// (all of them for a lone caller). ggml's threads spin while they wait, so more threads
        /// than cores slows everything down.
        public var threads: Int?
        /// Decoding states kept: how many calls decode at once; more callers wait their turn.
        public var maxConcurrentCalls: Int
        /// 1 decodes greedily (with best-of-5 sampling on temperature fallback); more is beam search.
        public var beamSize: Int
        /// How much the encoder looks at for audio shorter than 30 s.
        public var encoderWindow: EncoderWindow
        /// How far the heard text may be from the closest expected phrase and still count as it:
        /// the edit distance over the longer length, 0...1.
        public var phraseTolerance: Double
        /// How expected phrases are listened for.
        public var phraseMode: PhraseMode

        public init(
            threads: Int? = nil, maxConcurrentCalls: Int = ProcessInfo.processInfo.activeProcessorCount,
            beamSize: Int = 1, encoderWindow: EncoderWindow = .fitted(padding: 500, minimum: 0),
            phraseTolerance: Double = ExpectedPhrases.defaultTolerance, phraseMode: PhraseMode = .closestMatch
        ) {
            self.threads = threads
            self.maxConcurrentCalls = maxConcurrentCalls
            self.beamSize = beamSize
            self.encoderWindow = encoderWindow
            self.phraseTolerance = phraseTolerance
            self.phraseMode = phraseMode
        }
    }

    /// whisper.cpp's encoder always takes 30 s; `audio_ctx` (encoder frames of 20 ms, 1500 in all)
    /// shortens it, and with it the cost, for short audio.
    public enum EncoderWindow: Sendable, Equatable {
        /// Always 30 s, as the models were trained (and as faster-whisper does).
        case full
        /// The audio's own length plus `padding` frames (room after the last word to end the
        /// segment), at least `minimum` frames. Much faster for short clips, a little less accurate.
        case fitted(padding: Int, minimum: Int)

        /// The `audio_ctx` for `samples` at 16 kHz; 0 is whisper's full window.
        func audioContext(samples: Int, full: Int) -> Int32 {
            guard case .fitted(let padding, let minimum) = self else { return 0 }
            let frames = (samples + 319) / 320
            let fitted = max(minimum, frames + padding)
            return fitted >= full ? 0 : Int32(fitted)
        }
    }

    /// Two ways to get exactly one of the expected phrases out of Whisper.
    public enum PhraseMode: Sendable, Equatable {
        /// Transcribe freely, with the phrases as the prompt, then take the closest phrase within
        /// ``Configuration/phraseTolerance``, or nothing.
        case closestMatch
        /// Constrain the decoder with a whisper.cpp grammar of the phrases, then match as above.
        case grammar
    }

    public let model: WhisperModel
    public let configuration: Configuration
    private let context: WhisperContext
    private let pool: WhisperStatePool

    /// whisper.cpp's sample rate; other audio is resampled to it, a window at a time.
    public static let sampleRate = 16000
    /// The longest stretch whisper decodes at once.
    public static let windowSeconds = 30
    /// Samples of steady sound kept at a window's edges (0.3 s): the start of a soft first
    /// consonant, the fading of a last one.
    static let leadBeforeSound = sampleRate * 3 / 10

    /// Loads `model` (or takes the process's copy of it). A missing file is ``WhisperError/Kind/modelMissing``,
    /// a file that is not a whisper.cpp model ``WhisperError/Kind/modelCorrupt``.
    public init(model: WhisperModel, configuration: Configuration = Configuration()) throws(WhisperError) {
        self.model = model
        self.configuration = configuration
        context = try WhisperContext.shared(model)
        pool = WhisperStatePool(context: context, capacity: configuration.maxConcurrentCalls)
    }

    /// Finds the model by name or path (``WhisperModel/find(_:in:)``) and loads it.
    public convenience init(
        model nameOrPath: String?, directories: [String] = WhisperModel.searchDirectories(),
        configuration: Configuration = Configuration()
    ) throws(WhisperError) {
        try self.init(model: WhisperModel.find(nameOrPath, in: directories), configuration: configuration)
    }

    /// Whether the model knows languages other than English (not a `.en` model).
    public var isMultilingual: Bool { context.header.isMultilingual }
    /// Seconds the first load of this model took in this process.
    public var loadSeconds: Double { context.loadSeconds }
    /// Decoding states made so far, at most ``Configuration/maxConcurrentCalls``.
    public var statesCreated: Int { pool.statesCreated }

    // MARK: Transcribing

    /// Transcribes `audio`. `language` is honoured (an unknown one, or a non-English one for an
    /// English-only model, is ``WhisperError/Kind/invalidRequest``) or detected when `nil`, and
    /// reported in ``Transcript/language``; `prompt` becomes whisper's initial prompt; `temperature`
    /// its starting temperature. With `expectedPhrases` the text is exactly one of them or empty.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws(WhisperError) -> Transcript {
        let language = try whisperLanguage(options.language)
        var phrases: [String]?
        if let expected = options.expectedPhrases {
            phrases = expected.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard phrases?.isEmpty == false else {
                throw WhisperError(
                    .invalidRequest, function: "transcribe", message: "the expected phrases are all empty",
                    parameter: "expect")
            }
        }
        let lease = try pool.acquire()
        defer { pool.release(lease) }
        var transcript = try transcribeWindows(audio, options: options, language: language, lease: lease)
        if let phrases {
            transcript = ExpectedPhrases.answer(transcript, among: phrases, tolerance: configuration.phraseTolerance)
        }
        return transcript
    }

    /// whisper's code for a BCP 47 tag (`en-US` → `en`), or `nil` to detect the language.
    private func whisperLanguage(_ tag: String?) throws(WhisperError) -> String? {
        guard let tag = tag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty, tag.lowercased() != "auto" else {
            return context.header.isMultilingual ? nil : "en"
        }
        let primary = String(tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
        let id = whisper_lang_id(primary)
        guard id >= 0, let code = whisper_lang_str(id).map({ String(cString: $0) }) else {
            throw WhisperError(
                .invalidRequest, function: "whisper_lang_id", message: "unknown language '\(tag)'",
                parameter: "language")
        }
        guard context.header.isMultilingual || code == "en" else {
            throw WhisperError(
                .invalidRequest, function: "transcribe",
                message: "the model \(model.name) is English-only; cannot transcribe '\(tag)'"
                    + " (use a multilingual model such as base)", parameter: "language")
        }
        return code
    }

    /// One window's result, times in whisper's centiseconds from the window's start.
    private struct WindowSegment {
        var t0: Int
        var t1: Int
        var text: String
        var words: [Transcript.Word]
    }

    private func transcribeWindows(
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
    private static func index(_ index: Int, from: Int, to: Int) -> Int {
        from == to ? index : Int(Int64(index) * Int64(to) / Int64(from))
    }

    /// Whether a segment's text says nothing: empty, or no letter or digit ("...", "-").
    static func isNonSpeech(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    /// For a window that is not the last: the segments to keep and where the next window starts
    /// (centiseconds). A segment running into the window's end may have lost its last word there,
    /// so it is decoded again at the start of the next window, as whisper itself seeks.
    private static func cut(_ segments: [WindowSegment], windowLength: Int) -> (Int, Int) {
        guard let last = segments.last else { return (0, windowLength) }
        let minimum = 100
        let incomplete = last.t1 <= last.t0 || last.t1 >= windowLength - 20
        if incomplete, last.t0 >= minimum { return (segments.count - 1, last.t0) }
        if !incomplete, last.t1 >= minimum { return (segments.count, last.t1) }
        return (segments.count, windowLength)
    }

    /// Samples `from..<to` of the audio at 16 kHz (indices at that rate) as floats in -1...1.
    private static func floats(_ audio: PCMBuffer, from: Int, to: Int) -> [Float] {
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

    // MARK: One window through whisper.cpp

    /// The threads one call decodes with: the cores shared among the calls running, less the cores
    /// other work occupies at this moment (`othersRunning`: runnable tasks besides the caller, the
    /// kernel's count that /proc/stat and /proc/loadavg both show, ``RunnableTasks``), at least
    /// one. ggml's threads meet at a spinning barrier after every graph node, so a thread that has
    /// to share its core makes the others burn their time: measured on 2 loaded cores, one thread
    /// transcribed 4–5× faster than two. The 1-minute load average used before
    /// lags by up to a minute: with the other core busy it still chose two threads, with it free
    /// again one. Benchmarks/transcription.py, both builds side by side at load 2.2 (median): warm
    /// base 0.64×, tiny.en 0.71× the time of the load-average rule, the same texts. A single look
    /// at /proc/stat lost to it at load 1.7 (1.18× base): passing tasks cost a thread, hence
    /// ``othersRunningSteadily()``. Without that count, the load average decides.
    static func threads(cores: Int, concurrentCalls: Int, othersRunning: Int?, loadAverage: Double) -> Int {
        let shared = max(1, cores / max(1, concurrentCalls))
        guard let othersRunning else { return loadAverage > Double(cores) ? 1 : shared }
        return max(1, min(shared, cores - othersRunning))
    }

    /// Runnable tasks besides the caller that stay runnable: the fewest of three looks 2 ms apart,
    /// so that a task that only passes through (an HTTP thread, a shell) does not cost a thread.
    static func othersRunningSteadily() -> Int? {
        var fewest: Int?
        for look in 0..<3 {
            if look > 0 { usleep(2000) }
            guard let count = RunnableTasks.othersRunning() else { return nil }
            fewest = min(fewest ?? count, count)
        }
        return fewest
    }

    private func decode(
        _ pcm: [Float], lease: WhisperStatePool.Lease, language: String?, prompt: String, previous: [WindowSegment],
        grammar: PhraseGrammar?, options: TranscriptionOptions, singlePass: Bool
    ) throws(WhisperError) -> ([WindowSegment], String?) {
        let ctx = context.pointer
        let state = lease.state
        let strategy = configuration.beamSize > 1 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY
        var params = whisper_full_default_params(strategy)
        var load = [0.0]
        let loadAverage = getloadavg(&load, 1) == 1 ? load[0] : 0
        params.n_threads = Int32(
            configuration.threads
                ?? Self.threads(
                    cores: ProcessInfo.processInfo.activeProcessorCount, concurrentCalls: lease.concurrent,
                    othersRunning: Self.othersRunningSteadily(), loadAverage: loadAverage))
        params.beam_search.beam_size = Int32(max(1, configuration.beamSize))
        params.no_context = true
        params.print_progress = false
        params.print_realtime = false
        params.print_timestamps = false
        params.print_special = false
        // Non-speech tokens suppressed: allowed, whisper bracketed real words ("[Council]"). Steady
        // sound, where suppressed it made words up, is not decoded at all.
        params.suppress_nst = true
        params.token_timestamps = options.wordTimestamps
        // whisper.cpp gives an English-only model no task token: with translate it transcribes.
        params.translate = options.translate
        if let temperature = options.temperature { params.temperature = Float(min(1, max(0, temperature))) }
        // Language detection needs the whole window: a shortened one took English for Finnish.
        if language != nil {
            params.audio_ctx = configuration.encoderWindow.audioContext(
                samples: pcm.count, full: Int(whisper_model_n_audio_ctx(ctx)))
        }
        // A window that is not the last is decoded once: what whisper would decode next lies
        // partly beyond the window, and is the next window's start.
        let encodes = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        encodes.initialize(to: 0)
        defer { encodes.deallocate() }
        if singlePass {
            params.encoder_begin_callback = firstEncodeOnly
            params.encoder_begin_callback_user_data = UnsafeMutableRawPointer(encodes)
        }
        // The grammar's rules, in memory that stays put for the call.
        let rules = (grammar?.rules ?? []).map { rule in
            let elements = UnsafeMutablePointer<whisper_grammar_element>.allocate(capacity: rule.count)
            for (index, element) in rule.enumerated() {
                elements[index] = whisper_grammar_element(type: whisper_gretype(element.type), value: element.value)
            }
            return UnsafePointer(elements)
        }
        defer {
            for rule in rules { UnsafeMutablePointer(mutating: rule).deallocate() }
        }
        let promptTokens = self.promptTokens(prompt, previous: previous)
        let code: Int32 = (language ?? "auto").withCString { languagePointer in
            promptTokens.withUnsafeBufferPointer { promptPointer in
                params.language = languagePointer
                params.prompt_tokens = promptTokens.isEmpty ? nil : promptPointer.baseAddress
                params.prompt_n_tokens = Int32(promptTokens.count)
                var ruleList = rules.map { Optional($0) }
                return ruleList.withUnsafeMutableBufferPointer { ruleList in
                    if !rules.isEmpty {
                        params.grammar_rules = ruleList.baseAddress
                        params.n_grammar_rules = rules.count
                        params.i_start_rule = 0
                    }
                    return pcm.withUnsafeBufferPointer { samples in
                        whisper_full_with_state(ctx, state, params, samples.baseAddress, Int32(samples.count))
                    }
                }
            }
        }
        try WhisperError.check(code, "whisper_full_with_state", WhisperLog.takeLastError() ?? "decoding failed")
        let detected = whisper_lang_str(whisper_full_lang_id_from_state(state)).map { String(cString: $0) }
        var segments: [WindowSegment] = []
        for index in 0..<whisper_full_n_segments_from_state(state) {
            let text = whisper_full_get_segment_text_from_state(state, index).map { String(cString: $0) } ?? ""
            segments.append(
                WindowSegment(
                    t0: Int(whisper_full_get_segment_t0_from_state(state, index)),
                    t1: Int(whisper_full_get_segment_t1_from_state(state, index)),
                    text: text, words: options.wordTimestamps ? words(segment: index, state: state) : []))
        }
        return (segments, detected)
    }

    /// The decoder's prompt: `prompt`'s tokens, then the previous window's segments as whisper
    /// itself carries them from one window to the next, each between its timestamp tokens. Text
    /// alone there (an `initial_prompt`) made whisper stop timing: everything after the first
    /// 30 s came back as one segment, its words bunched at its start.
    private func promptTokens(_ prompt: String, previous: [WindowSegment]) -> [whisper_token] {
        let ctx = context.pointer
        func tokens(_ text: String) -> [whisper_token] {
            guard !text.isEmpty else { return [] }
            var buffer = [whisper_token](repeating: 0, count: text.utf8.count + 8)
            let count = whisper_tokenize(ctx, text, &buffer, Int32(buffer.count))
            return count > 0 ? Array(buffer.prefix(Int(count))) : []
        }
        let begin = whisper_token_beg(ctx)
        func time(_ centiseconds: Int) -> whisper_token { begin + whisper_token(min(1500, max(0, centiseconds / 2))) }
        var all = tokens(prompt)
        for segment in previous {
            all +=
                [time(segment.t0)] + tokens(" " + segment.text.trimmingCharacters(in: .whitespaces)) + [
                    time(segment.t1)
                ]
        }
        // As whisper does: at most half the text context, the most recent part.
        return Array(all.suffix(Int(whisper_model_n_text_ctx(ctx)) / 2 - 1))
    }

    /// The segment's words from its tokens: a token starting with a space starts a word, the others
    /// (word pieces, punctuation) extend it. Bytes are joined before decoding, since one UTF-8
    /// character may be split across tokens.
    private func words(segment: Int32, state: OpaquePointer) -> [Transcript.Word] {
        let ctx = context.pointer
        let endOfText = whisper_token_eot(ctx)
        var words: [Transcript.Word] = []
        var bytes: [UInt8] = []
        var start = 0.0
        var end = 0.0
        var probabilities: [Double] = []
        func flush() {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if !text.isEmpty {
                let probability = probabilities.isEmpty ? nil : probabilities.reduce(0, +) / Double(probabilities.count)
                words.append(Transcript.Word(start: start, end: max(start, end), text: text, probability: probability))
            }
            bytes = []
            probabilities = []
        }
        for index in 0..<whisper_full_n_tokens_from_state(state, segment) {
            let data = whisper_full_get_token_data_from_state(state, segment, index)
            guard data.id < endOfText, let piece = whisper_full_get_token_text_from_state(ctx, state, segment, index)
            else { continue }
            let pieceBytes = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(piece), count: strlen(piece)))
            if pieceBytes.first == 0x20 || bytes.isEmpty {
                flush()
                start = Double(data.t0) / 100
            }
            bytes += pieceBytes
            end = Double(data.t1) / 100
            probabilities.append(Double(data.p))
        }
        flush()
        return words
    }
}

/// whisper.cpp's encoder_begin_callback: allows the first encode of a call and stops the rest.
private func firstEncodeOnly(_: OpaquePointer?, _: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> Bool {
    guard let counter = data?.assumingMemoryBound(to: Int32.self) else { return true }
    counter.pointee += 1
    return counter.pointee <= 1
}
