internal import CWhisper
import Foundation
import SpeakKit

/// One window through whisper.cpp: its parameters, the prompt carried from the window before, and
/// the segments and words it heard.
extension WhisperTranscriber {
    /// Decodes one window's samples; `singlePass` stops whisper after its first encode (a window
    /// that is not the last). Returns its segments and the language whisper detected.
    func decode(
        _ pcm: [Float], lease: WhisperStatePool.Lease, language: String?, prompt: String, previous: [WindowSegment],
        grammar: PhraseGrammar?, options: TranscriptionOptions, singlePass: Bool
    ) throws(WhisperError) -> ([WindowSegment], String?) {
        let ctx = context.pointer
        let state = lease.state
        var params = configuration.decodingParameters()
        var load = [0.0]
        let loadAverage = getloadavg(&load, 1) == 1 ? load[0] : 0
        params.n_threads = Int32(
            configuration.threads
                ?? Self.threads(
                    cores: ProcessInfo.processInfo.activeProcessorCount, concurrentCalls: lease.concurrent,
                    othersRunning: Self.othersRunningSteadily(), loadAverage: loadAverage))
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
        // An interim text is revised anyway: no fallback to sampling several candidates.
        if options.interim { params.temperature_inc = 0 }
        // Language detection needs the whole window: a shortened one took English for Finnish.
        if language != nil {
            params.audio_ctx = configuration.encoderWindow.audioContext(
                samples: pcm.count, full: Int(whisper_model_n_audio_ctx(ctx)), interim: options.interim)
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
                    // Word timings weigh whisper's own copy of the samples: those calls keep its spectrogram.
                    guard configuration.spectrogram == .fasterWhisper, !options.wordTimestamps else {
                        return pcm.withUnsafeBufferPointer { samples in
                            whisper_full_with_state(ctx, state, params, samples.baseAddress, Int32(samples.count))
                        }
                    }
                    let mel = context.logMel.spectrogram(pcm)
                    let set = whisper_set_mel_with_state(
                        ctx, state, mel.data, Int32(mel.frames), Int32(context.logMel.bands))
                    guard set == 0 else { return set }
                    return whisper_full_with_state(ctx, state, params, nil, 0)
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
        // With a space before it, as faster-whisper and OpenAI's whisper tokenize an initial prompt.
        let trimmed = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        var all = trimmed.isEmpty ? [] : tokens(" " + trimmed)
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
