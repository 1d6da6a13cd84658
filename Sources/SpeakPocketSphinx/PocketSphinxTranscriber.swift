internal import CPocketSphinx
import Foundation
import SpeakKit

/// The files of a pocketsphinx model: acoustic model directory, language model, dictionary.
public struct PocketSphinxModel: Sendable, Equatable {
    public var acousticModel: String
    public var languageModel: String
    public var dictionary: String
    /// The rate the acoustic model was trained at: 16 kHz, the rate every transcriber takes.
    public var sampleRate: Int

    public init(
        acousticModel: String, languageModel: String, dictionary: String,
        sampleRate: Int = TranscriptionEngine.sampleRate
    ) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.sampleRate = sampleRate
    }

    /// US English from Debian's `pocketsphinx-en-us`.
    public static let englishUS = PocketSphinxModel(
        acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
        languageModel: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")
}

/// Local speech recognition with pocketsphinx (the 5prealpha API Debian 12 ships), linked in process.
///
/// Loading the model is the expensive part, so each instance loads it once and
/// keeps one decoder, used by one call at a time. A server that transcribes in parallel keeps a pool
/// of instances. Free dictation uses the model's language model; ``TranscriptionOptions/expectedPhrases``
/// switch that call to a JSGF grammar of exactly those phrases, which synthetic and noisy speech
/// need to be recognised reliably.
public final class PocketSphinxTranscriber: ExpectedPhraseChecking, Sendable {
    public let model: PocketSphinxModel
    /// `ps_decoder_t *`: one call at a time, so only behind the lock.
    private let decoder: Locked<CHandle>
    /// The language-model search `ps_init` set up, restored after each grammar call.
    private let dictationSearch: String
    private let framesPerSecond: Double

    private static let grammarSearch = "expected"

    /// What a pool of the default model's decoders is, told before one is loaded.
    public static let englishUS = TranscriberDescription(
        name: "CMU pocketsphinx, US English", model: "en-us", languages: ["en"])

    public var about: TranscriberDescription? {
        model == .englishUS
            ? Self.englishUS
            : TranscriberDescription(
                name: "CMU pocketsphinx", model: (model.acousticModel as NSString).lastPathComponent, languages: [])
    }

    /// Loads the model; `ps_init`.
    public init(model: PocketSphinxModel = .englishUS) throws(PocketSphinxError) {
        self.model = model
        for path in [model.acousticModel, model.languageModel, model.dictionary]
        where !FileManager.default.fileExists(atPath: path) {
            throw PocketSphinxError(
                code: -1, function: "ps_init", message: "model file missing: \(path) (apt install pocketsphinx-en-us)")
        }
        Self.silenceLog
        // cmd_ln_init is variadic; cmd_ln_parse_r takes the same options as an argv array.
        let arguments = [
            "-hmm", model.acousticModel, "-lm", model.languageModel, "-dict", model.dictionary,
            "-samprate", String(model.sampleRate),
        ]
        var argv = arguments.map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        guard let config = cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1) else {
            throw PocketSphinxError(code: -1, function: "cmd_ln_parse_r", message: "invalid options \(arguments)")
        }
        // The decoder keeps its own reference to the configuration.
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else {
            throw PocketSphinxError(
                code: -1, function: "ps_init", message: "cannot load the model in \(model.acousticModel)")
        }
        dictationSearch = ps_get_search(decoder).map { String(cString: $0) } ?? "_default"
        let frameRate = cmd_ln_int_r(config, "-frate")
        framesPerSecond = frameRate > 0 ? Double(frameRate) : 100
        self.decoder = Locked(CHandle(decoder))
    }

    deinit { decoder.withLock { _ = ps_free($0.pointer) } }

    /// sphinxbase logs to stderr through one process-wide FILE. `-logfn` would reopen it per decoder
    /// and close the old one under other decoders still writing, so it is switched off once instead.
    private static let silenceLog: Void = err_set_logfp(nil)

    /// Recognises `audio`, at the model's rate (``TranscriptionEngine`` converts other audio).
    /// `prompt` is ignored: the old decoder has no way to take one. An utterance with nothing
    /// recognised gives an empty text.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws(PocketSphinxError) -> Transcript {
        if let language = options.language, !language.lowercased().hasPrefix("en") {
            throw .unsupported(language: language)
        }
        guard audio.sampleRate == model.sampleRate else {
            throw PocketSphinxError(
                code: -1, function: "transcribe",
                message: "audio at \(audio.sampleRate) Hz; the model takes \(model.sampleRate) Hz mono "
                    + "(TranscriptionEngine converts it)")
        }
        var samples = audio.samples
        Self.ditherSilence(&samples)
        var grammar: [[String]]?
        if let phrases = options.expectedPhrases { grammar = try Self.grammar(phrases) }
        return try decoder.withLock { (handle) throws(PocketSphinxError) -> Transcript in
            let decoder = handle.pointer
            defer {
                if grammar != nil { restoreDictation(decoder) }
            }
            if let grammar {
                try useGrammar(grammar, decoder)
            }
            try decode(samples, decoder)
            return transcript(duration: audio.duration, decoder)
        }
    }

    /// The words of `phrases` that the dictionary lacks, after the same normalisation as transcription.
    public func unknownWords(in phrases: [String]) -> [String] {
        decoder.withLock { unknownWords(Self.normalise(phrases).flatMap { $0 }, $0.pointer) }
    }

    // MARK: Decoding

    private func decode(_ samples: [Int16], _ decoder: OpaquePointer) throws(PocketSphinxError) {
        try PocketSphinxError.check(ps_start_utt(decoder), "ps_start_utt", "cannot start an utterance")
        // The whole utterance at once: cepstral mean normalisation then uses all of it.
        let processed = samples.withUnsafeBufferPointer { buffer in
            ps_process_raw(decoder, buffer.baseAddress, buffer.count, 0, 1)
        }
        let ended = ps_end_utt(decoder)
        try PocketSphinxError.check(processed, "ps_process_raw", "cannot process \(samples.count) samples")
        try PocketSphinxError.check(ended, "ps_end_utt", "cannot end the utterance")
    }

    private func transcript(duration: Double, _ decoder: OpaquePointer) -> Transcript {
        var segments: [Transcript.Segment] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            if let word = ps_seg_word(current).map({ String(cString: $0) }), let spoken = Self.spokenWord(word) {
                var first: Int32 = 0
                var last: Int32 = 0
                ps_seg_frames(current, &first, &last)
                segments.append(
                    Transcript.Segment(
                        start: Double(first) / framesPerSecond, end: Double(last + 1) / framesPerSecond, text: spoken))
            }
            // ps_seg_next frees the iterator at the end.
            segment = ps_seg_next(current)
        }
        let hypothesis = ps_get_hyp(decoder, nil).map { String(cString: $0) } ?? ""
        let text = hypothesis.split(separator: " ").compactMap { Self.spokenWord(String($0)) }.joined(separator: " ")
        return Transcript(text: text, duration: duration, segments: segments)
    }

    /// Stretches of exact zeros (synthetic or trimmed audio) give log(0) energies that throw the whole
    /// utterance's normalisation off: "deploy to production" padded with zeros was not recognised.
    /// So zeros become ±1, from a fixed seed to keep results repeatable. Not `-dither`: its random
    /// generator is global to sphinxbase, shared unlocked by every decoder in a pool.
    static func ditherSilence(_ samples: inout [Int16]) {
        var state: UInt32 = 0x9E37_79B9
        for index in samples.indices where samples[index] == 0 {
            // xorshift32
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            samples[index] = state & 1 == 0 ? 1 : -1
        }
    }

    /// `word` without its pronunciation number (`read(2)`), or `nil` for silence and noise fillers.
    private static func spokenWord(_ word: String) -> String? {
        guard let initial = word.first, initial != "<", initial != "[", !word.hasPrefix("++") else { return nil }
        if word.hasSuffix(")"), let open = word.lastIndex(of: "(") { return String(word[..<open]) }
        return word
    }

    // MARK: Expected phrases

    private func useGrammar(_ phrases: [[String]], _ decoder: OpaquePointer) throws(PocketSphinxError) {
        let unknown = unknownWords(phrases.flatMap { $0 }, decoder)
        guard unknown.isEmpty else { throw .unknownWords(unknown) }
        let alternatives = phrases.map { $0.joined(separator: " ") }.joined(separator: " | ")
        let jsgf = "#JSGF V1.0;\ngrammar answers;\npublic <answer> = \(alternatives) ;\n"
        try PocketSphinxError.check(
            ps_set_jsgf_string(decoder, Self.grammarSearch, jsgf), "ps_set_jsgf_string",
            "cannot compile the grammar \(jsgf.debugDescription)")
        try PocketSphinxError.check(
            ps_set_search(decoder, Self.grammarSearch), "ps_set_search", "cannot switch to the grammar")
    }

    private func restoreDictation(_ decoder: OpaquePointer) {
        // Cannot fail: the search was set up by ps_init.
        _ = ps_set_search(decoder, dictationSearch)
        _ = ps_unset_search(decoder, Self.grammarSearch)
    }

    private func unknownWords(_ words: [String], _ decoder: OpaquePointer) -> [String] {
        var seen: Set<String> = []
        return words.filter { word in
            guard seen.insert(word).inserted else { return false }
            guard let phones = ps_lookup_word(decoder, word) else { return true }
            free(phones)
            return false
        }
    }

    /// The phrases as lowercase words; anything but letters, digits and apostrophes separates words.
    static func normalise(_ phrases: [String]) -> [[String]] {
        var seen: Set<[String]> = []
        return phrases.map { phrase in
            phrase.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
        }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    private static func grammar(_ phrases: [String]) throws(PocketSphinxError) -> [[String]] {
        let words = normalise(phrases)
        guard !words.isEmpty else {
            throw PocketSphinxError(
                code: -1, function: "ps_set_jsgf_string", message: "the expected phrases hold no words: \(phrases)")
        }
        return words
    }
}
