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
    /// Set once the cache has failed, so the fault is logged once and shows on `/ready`.
    private let cacheFault = Locked<String?>(nil)

    public init(catalog: VoiceCatalog, synthesizers: SynthesizerRegistry, cache: ReplyCache? = nil) {
        self.catalog = catalog
        self.synthesizers = synthesizers
        self.cache = cache
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

    // MARK: - Replies

    /// How a reply came about, for the front end to tell its user.
    public struct Outcome: Sendable {
        /// The voice that spoke instead of the one asked for, and why (its engine failed).
        public var fallback: (voice: String, reason: String)?
        public var fromCache = false
        /// How long the speech lasts, in seconds, when it was played (``play(_:on:onProgress:)``).
        public var seconds = 0.0
    }

    public func cacheKey(for request: SynthesisRequest) -> ReplyKey {
        ReplyKey(speaking: request.text, options: request.options, format: request.format.rawValue, mp3: request.mp3)
    }

    /// The stored reply for `request`, if one was made before.
    public func cachedReply(for request: SynthesisRequest) -> Data? {
        cache?.data(for: cacheKey(for: request))
    }

    /// The rate of an empty reply from an engine that does not say its rate before it speaks.
    static let emptyReplyRate = 22050

    /// Synthesises `request` to PCM. An engine that fails before its first chunk (an upstream that
    /// is down) is replaced by the voice's `fallback` (or `default`), which the outcome names.
    @discardableResult
    public func synthesize(
        _ request: SynthesisRequest, onProgress: ((Double) -> Void)? = nil, onChunk: (PCMChunk) throws -> Void
    ) throws -> Outcome {
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
            return Outcome()
        } catch {
            guard !started, let fallback = fallbackVoice(for: voice, after: error) else { throw error }
            var local = request
            local.voice = fallback
            try self.synthesizer(for: fallback).synthesize(
                local.text, options: local.options, onProgress: onProgress, onChunk: onChunk)
            return Outcome(fallback: (fallback.name, String(describing: error)))
        }
    }

    /// The local voice that answers for `voice` when its engine fails with `error`: only for
    /// engines that do not stream (remote ones), named by the voice's `fallback` setting.
    private func fallbackVoice(for voice: Voice, after error: any Error) -> Voice? {
        guard error is any FallbackEligible else { return nil }
        let name = voice.fallbackName ?? VoiceCatalog.defaultVoiceName
        guard let fallback = try? catalog.voice(named: name), fallback.engine != voice.engine else { return nil }
        return fallback
    }

    /// Encodes `request` in its format as it is synthesised, handing the bytes to `write` as they
    /// are ready, and stores the complete reply in the cache. The reply never depends on the cache:
    /// a cache that cannot be written is dropped for this reply, and its fault logged once.
    /// A reply spoken by a fallback voice is not cached (the next request tries the engine again).
    @discardableResult
    public func encodeReply(_ request: SynthesisRequest, write: (Data) throws -> Void) throws -> Outcome {
        var entry = beginCacheEntry(for: request)
        defer { entry?.abandon() }
        var wrote = false
        func emit(_ bytes: Data) throws {
            guard !bytes.isEmpty else { return }
            wrote = true
            try write(bytes)
            if let current = entry {
                do { try current.append(bytes) } catch {
                    noteCacheFault(error)
                    current.abandon()
                    entry = nil
                }
            }
        }
        let synthesizer = try self.synthesizer(for: request.voice)
        let outcome: Outcome
        do {
            if let encoded = try synthesizer.encodedReply(
                request.text, options: request.options, format: request.format)
            {
                try emit(encoded)
                outcome = Outcome()
            } else {
                outcome = try encodePCM(request, emit: emit)
            }
        } catch {
            // Once bytes are out, a fallback's reply would follow them as a second file.
            guard !wrote, let fallback = fallbackVoice(for: request.voice, after: error) else { throw error }
            var local = request
            local.voice = fallback
            entry?.abandon()
            entry = nil
            _ = try encodePCM(local, emit: emit)
            return Outcome(fallback: (fallback.name, String(describing: error)))
        }
        if outcome.fallback == nil, let current = entry {
            do {
                try current.commit()
                noteCacheStored()
            } catch { noteCacheFault(error) }
        }
        entry = nil
        return outcome
    }

    private func encodePCM(_ request: SynthesisRequest, emit: (Data) throws -> Void) throws -> Outcome {
        var encoder: ReplyEncoder?
        var (sampleCount, sampleRate) = (0, 24000)
        let outcome = try synthesize(request) { chunk in
            if encoder == nil {
                encoder = try ReplyEncoder(format: request.format, inputRate: chunk.sampleRate, mp3: request.mp3)
                sampleRate = chunk.sampleRate
            }
            sampleCount += chunk.samples.count
            try emit(encoder!.encode(chunk.samples))
        }
        if sampleCount < sampleRate / 10 {
            // Next to nothing to say ("…", "()": no samples from Piper, 7 ms from espeak-ng): padded
            // to a tenth of a second, so the reply is still a file a player opens (it was 0 bytes of
            // AAC, a lone WAV header, an Ogg with no audio page).
            if encoder == nil {
                encoder = try ReplyEncoder(format: request.format, inputRate: sampleRate, mp3: request.mp3)
            }
            let silence = [Int16](repeating: 0, count: sampleRate / 10 - sampleCount)
            try silence.withUnsafeBufferPointer { try emit(encoder!.encode($0)) }
        }
        try emit(encoder!.finish())
        return outcome
    }

    /// The whole reply at once: from the cache, or synthesised (and cached).
    public func reply(_ request: SynthesisRequest) throws -> (Data, Outcome) {
        if let cached = cachedReply(for: request) { return (cached, Outcome(fromCache: true)) }
        var data = Data()
        let outcome = try encodeReply(request) { data.append($0) }
        return (data, outcome)
    }

    /// Speaks `request` on `player` and returns once it has been heard. With a cache, a reply made
    /// before plays from it and a new one is stored as it is spoken.
    @discardableResult
    public func play(_ request: SynthesisRequest, on player: Player, onProgress: ((Double) -> Void)? = nil) throws
        -> Outcome
    {
        var request = request
        request.format = .mp3
        if let cached = cachedReply(for: request), let pcm = try? PCMBuffer(audio: cached) {
            try player.play(pcm)
            return Outcome(fromCache: true, seconds: pcm.duration)
        }
        let synthesizer = try synthesizer(for: request.voice)
        let rate = synthesizer.sampleRate(of: request.voice)
        var seconds = 0.0
        func heard(_ chunk: PCMChunk) { seconds += Double(chunk.samples.count) / Double(chunk.sampleRate) }
        guard cache != nil else {
            var outcome = try player.play(expectedSampleRate: rate) { write in
                try synthesize(request, onProgress: onProgress) { chunk in
                    heard(chunk)
                    try write(chunk)
                }
            }
            outcome.seconds = seconds
            return outcome
        }
        // An engine that answers whole (an upstream) is stored as it came, then played.
        if !synthesizer.features.contains(.streaming) {
            var (reply, outcome) = try self.reply(request)
            let pcm = try PCMBuffer(audio: reply)
            try player.play(pcm)
            outcome.seconds = pcm.duration
            return outcome
        }
        // Played and encoded for the cache as it comes, from one synthesis.
        var entry = beginCacheEntry(for: request)
        defer { entry?.abandon() }
        var encoder: MP3Encoder?
        var outcome = try player.play(expectedSampleRate: rate) { write in
            try synthesize(request, onProgress: onProgress) { chunk in
                heard(chunk)
                try write(chunk)
                guard let current = entry else { return }
                do {
                    if encoder == nil { encoder = try MP3Encoder(inputRate: chunk.sampleRate, settings: request.mp3) }
                    try current.append(encoder!.encode(Array(chunk.samples)))
                } catch {
                    noteCacheFault(error)
                    entry = nil
                }
            }
        }
        outcome.seconds = seconds
        if outcome.fallback == nil, let current = entry, let encoder {
            do {
                try current.append(encoder.finish())
                try current.commit()
                noteCacheStored()
            } catch { noteCacheFault(error) }
        }
        entry = nil
        return outcome
    }

    // MARK: - The cache's health

    /// Why the cache last failed to store a reply, if none has been stored since; `nil` while it works.
    public var cacheProblem: String? { cacheFault.withLock { $0 } }

    private func beginCacheEntry(for request: SynthesisRequest) -> ReplyCache.Entry? {
        guard let cache else { return nil }
        do { return try cache.beginEntry(for: cacheKey(for: request)) } catch {
            noteCacheFault(error)
            return nil
        }
    }

    /// Logged once per fault: until a reply is stored again (a full disk that was cleared, a reply
    /// too big for it followed by a small one), when the fault is forgotten.
    private func noteCacheFault(_ error: any Error) {
        let first = cacheFault.withLock { fault -> Bool in
            defer { if fault == nil { fault = String(describing: error) } }
            return fault == nil
        }
        if first {
            writeToStandardError("speak: reply cache not storing: \(error) (replies go on without it)\n")
        }
    }

    private func noteCacheStored() {
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
