import FoundationEssentials
import Glibc

/// The one thing every front end calls: the command line, `speak serve`'s HTTP routes, its worker
/// processes. It resolves voices, picks each voice's engine, serves and fills the reply cache,
/// falls back to a local voice when a remote engine fails, encodes, and plays through the lock.
/// It knows nothing of HTTP or of argument parsing.
public final class SpeechEngine: Sendable {
    public let catalog: VoiceCatalog
    public let synthesizers: SynthesizerRegistry
    public let cache: ReplyCache?
    /// The encoders replies are made with.
    public let codecs: Codecs
    /// Set once the cache has failed, so the fault is logged once and shows on `/ready`.
    private let cacheFault = Locked<String?>(nil)
    /// ``openAIVoice``, once found.
    let englishVoice = Locked<Voice?>(nil)

    public init(
        catalog: VoiceCatalog, synthesizers: SynthesizerRegistry, cache: ReplyCache? = nil, codecs: Codecs = .builtIn
    ) {
        self.catalog = catalog
        self.synthesizers = synthesizers
        self.cache = cache
        self.codecs = codecs
    }

    /// The voice named `name` (the default voice for `nil`), or an error naming the closest voices.
    public func voice(named name: String?) throws(VoiceError) -> Voice {
        try catalog.voice(named: name ?? VoiceCatalog.defaultVoiceName)
    }

    public func synthesizer(for voice: Voice) throws -> any Synthesizer {
        try synthesizers.synthesizer(for: voice.engine)
    }

    /// Whether `voice` can speak here now: its engine is carried and reports nothing missing.
    /// `nil` when this program does not carry the engine (the light `speak` and remote engines).
    public func availability(of voice: Voice) -> Result<Void, SynthesisError>? {
        guard synthesizers.carries(voice.engine) else { return nil }
        do {
            let problems = try synthesizers.synthesizer(for: voice.engine).problems(with: [voice])
            guard let problem = problems.values.sorted().first else { return .success(()) }
            return .failure(.engineUnavailable(engine: voice.engine, reason: problem))
        } catch let error as SynthesisError {
            return .failure(error)
        } catch {
            return .failure(.engineUnavailable(engine: voice.engine, reason: String(describing: error)))
        }
    }

    /// The voice that speaks `language` (BCP 47, `en`, `fr-FR`; `_` taken as `-`) best here: the
    /// region asked for before another region, and a neural voice before others within each. `nil`
    /// when no voice that can speak here has the language. What OpenAI's voice names and a Wyoming
    /// request by language get.
    public func preferredVoice(forLanguage language: String) -> Voice? {
        let wanted = String(language.lowercased().map { $0 == "_" ? "-" : $0 })
        func primary(_ tag: String) -> Substring { tag.prefix { $0 != "-" } }
        func natural(_ voice: Voice) -> Bool {
            (try? synthesizers.synthesizer(for: voice.engine).features.contains(.natural)) == true
        }
        let speaking = catalog.voices.filter { (try? availability(of: $0)?.get()) != nil }
        let ranks: [(Voice) -> Bool] = [
            { natural($0) && $0.language.lowercased() == wanted },
            { $0.language.lowercased() == wanted },
            { natural($0) && primary($0.language.lowercased()) == primary(wanted) },
            { primary($0.language.lowercased()) == primary(wanted) },
        ]
        return ranks.lazy.compactMap { rank in speaking.first(where: rank) }.first
    }

    // MARK: - Synthesis

    /// The rate of an empty reply from an engine that does not say its rate before it speaks.
    static let emptyReplyRate = 22050

    /// Synthesises `request` to PCM. An engine that fails before its first chunk (an upstream that
    /// is down) is replaced by the voice's `fallback` (or `default`), which the outcome names.
    @discardableResult
    public func synthesize(
        _ request: SynthesisRequest, onProgress: ((Double) -> Void)? = nil, onChunk: (PCMChunk) throws -> Void
    ) throws -> ReplyInfo {
        let voice = request.voice
        let synthesizer = try self.synthesizer(for: voice)
        var started = false
        var steady = SteadyRate()
        do {
            try synthesizer.synthesize(request.text, options: request.options, onProgress: onProgress) { chunk in
                started = true
                try steady.pass(chunk, to: onChunk)
            }
            if !started {
                // Nothing to say (a Piper voice given only punctuation): one empty chunk, so a file
                // or reply is a valid one of no samples, not zero bytes.
                let rate = synthesizer.sampleRate(of: voice) ?? Self.emptyReplyRate
                try [Int16]().withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: rate)) }
            }
            return ReplyInfo()
        } catch {
            guard !started, let fallback = fallbackVoice(for: voice, after: error) else { throw error }
            var local = request
            local.voice = fallback
            try self.synthesizer(for: fallback).synthesize(
                local.text, options: local.options, onProgress: onProgress, onChunk: onChunk)
            var info = ReplyInfo()
            info.fallback = (fallback.name, String(describing: error))
            return info
        }
    }

    /// The local voice that answers for `voice` when its engine fails with `error`: only for
    /// engines that do not stream (remote ones), named by the voice's `fallback` setting.
    func fallbackVoice(for voice: Voice, after error: any Error) -> Voice? {
        guard error is any FallbackEligible else { return nil }
        let name = voice.fallbackName ?? VoiceCatalog.defaultVoiceName
        guard let fallback = try? catalog.voice(named: name), fallback.engine != voice.engine else { return nil }
        return fallback
    }

    // MARK: - The cache's health

    /// Why the cache last failed to store a reply, if none has been stored since; `nil` while it works.
    public var cacheProblem: String? { cacheFault.withLock { $0 } }

    /// Logged once per fault: until a reply is stored again (a full disk that was cleared, a reply
    /// too big for it followed by a small one), when the fault is forgotten.
    func noteCacheFault(_ error: any Error) {
        let first = cacheFault.withLock { fault -> Bool in
            defer { if fault == nil { fault = String(describing: error) } }
            return fault == nil
        }
        if first {
            writeToStandardError("speak: reply cache not storing: \(error) (replies go on without it)\n")
        }
    }

    func noteCacheStored() {
        cacheFault.withLock { $0 = nil }
    }
}

/// An engine failure after which a local voice may answer instead (a remote engine that is down).
public protocol FallbackEligible: Error {}

extension Voice {
    /// The local voice that answers when this voice's engine fails: `fallback` in its settings.
    public var fallbackName: String? {
        if case .object(let settings) = settings, case .string(let name)? = settings["fallback"] { return name }
        return nil
    }
}

/// Holds a reply to the rate of its first chunk. A synthesizer promises one rate per reply, and
/// every consumer (the encoder's header, the open device) takes the first chunk's; a chunk at
/// another rate would otherwise be played or written at the wrong speed, so it is resampled.
private struct SteadyRate {
    private var rate: Int?
    private var resampler: Resampler?

    mutating func pass(_ chunk: PCMChunk, to onChunk: (PCMChunk) throws -> Void) throws {
        guard let rate, chunk.sampleRate != rate else {
            rate = rate ?? chunk.sampleRate
            return try onChunk(chunk)
        }
        if resampler?.inputRate != chunk.sampleRate {
            resampler = Resampler(inputRate: chunk.sampleRate, outputRate: rate)
        }
        let converted = resampler!.process(chunk.samples)
        try converted.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: rate)) }
    }
}
