import FoundationEssentials

/// The one reply call: every front end asks ``reply(_:)`` and maps the ``Reply`` onto its wire.
/// Whether a reply is held, stored or made, whether it streams, who may make it, and which voice
/// answers when an engine fails are all decided here.
extension SpeechEngine {
    public func cacheKey(for request: SynthesisRequest) -> ReplyKey {
        ReplyKey(speaking: request.text, options: request.options, format: request.format.rawValue, mp3: request.mp3)
    }

    /// The reply to `request`, as its delivery asks.
    public func reply(_ request: ReplyRequest) throws -> Reply {
        let key = cacheKey(for: request.synthesis)
        let tag = key.digest
        if case .samples = request.delivery {
            return .samples { [self] onProgress, onChunk in
                try samples(request, key: key, onProgress: onProgress, onChunk: onChunk)
            }
        }
        // Answered before anything of the request is copied or captured: the path of most replies.
        if request.clientHolds.contains(tag) { return .unchanged(ReplyInfo(tag: tag, fromCache: true)) }
        if let held = cache?.heldData(for: key) { return .ready(held, ReplyInfo(tag: tag, fromCache: true)) }
        return try storedOrMade(request, key: key)
    }

    /// A reply not held in memory: read from disk later, or made.
    private func storedOrMade(_ request: ReplyRequest, key: ReplyKey) throws -> Reply {
        let synthesis = request.synthesis
        let tag = key.digest
        if let cache, cache.hasStoredEntry(for: key) {
            return .later(ReplyInfo(tag: tag, fromCache: true)) { [self] in
                if let stored = cache.storedData(for: key) { return (stored, ReplyInfo(tag: tag, fromCache: true)) }
                // Evicted or damaged since it was seen: made again, whole.
                try request.admit()
                return try whole(synthesis, key: key, maker: self.maker(for: synthesis.voice))
            }
        }
        try request.admit()
        let maker = try self.maker(for: synthesis.voice)
        guard maker.streams, case .streamed = request.delivery else {
            // A remote engine answers whole: waited for, so a fallback voice is named before the first byte.
            return .later(ReplyInfo(tag: tag, upstream: maker.upstream)) { [self] in
                try whole(synthesis, key: key, maker: maker)
            }
        }
        // Refused now, so the front end answers with an error, not a reply cut off after its first bytes.
        try refuseIfUnavailable(synthesis.voice)
        return .stream(ReplyInfo(tag: tag, upstream: maker.upstream)) { [self] write in
            try encode(synthesis, key: key, maker: maker, write: write)
        }
    }

    /// Speaks `request` on `player` and returns once it has been heard: from the cache when it was
    /// made before, else stored as it is spoken.
    @discardableResult
    public func play(_ request: SynthesisRequest, on player: Player, onProgress: ((Double) -> Void)? = nil) throws
        -> ReplyInfo
    {
        var request = request
        request.format = .mp3
        // The device opens at the voice's rate: its engine, looked up once, makes the reply too.
        let maker = try self.maker(for: request.voice)
        let key = cacheKey(for: request)
        return try player.play(expectedSampleRate: maker.synthesizer.sampleRate(of: request.voice)) { write in
            try samples(
                ReplyRequest(request, delivery: .samples), key: key, maker: maker, onProgress: onProgress,
                onChunk: write)
        }
    }

    // MARK: - Making replies

    /// What makes a new reply in a voice: its engine, the remote service behind it, and whether it
    /// streams: looked up once per reply.
    private struct Maker: Sendable {
        let synthesizer: any Synthesizer
        let upstream: String?
        var streams: Bool { synthesizer.features.contains(.streaming) }
    }

    private func maker(for voice: Voice) throws -> Maker {
        let synthesizer = try self.synthesizer(for: voice)
        return Maker(synthesizer: synthesizer, upstream: synthesizer.source(of: voice))
    }

    /// Made whole (and cached), on the caller's thread.
    private func whole(_ request: SynthesisRequest, key: ReplyKey, maker: Maker) throws -> (Data, ReplyInfo) {
        var data = Data()
        let info = try encode(request, key: key, maker: maker) { data.append($0) }
        return (data, info)
    }

    /// Encodes `request` in its format as it is synthesised, handing the bytes to `write` as they
    /// are ready, and stores the complete reply in the cache. The reply never depends on the cache:
    /// a cache that cannot be written is dropped for this reply, and its fault logged once.
    private func encode(_ request: SynthesisRequest, key: ReplyKey, maker: Maker, write: (Data) throws -> Void)
        throws -> ReplyInfo
    {
        var info = ReplyInfo(tag: key.digest, upstream: maker.upstream)
        let entry = CacheEntry(self, key: key)
        var wrote = false
        func emit(_ bytes: Data) throws {
            guard !bytes.isEmpty else { return }
            wrote = true
            try write(bytes)
            entry.append(bytes)
        }
        func encodePCM(_ request: SynthesisRequest) throws -> ReplyInfo {
            var encoder = PaddedEncoder(format: request.format, mp3: request.mp3, codecs: codecs)
            let outcome = try synthesize(request) { try emit(encoder.encode($0)) }
            try emit(encoder.finish())
            return outcome
        }
        do {
            if let encoded = try maker.synthesizer.encodedReply(
                request.text, options: request.options, format: request.format)
            {
                try emit(encoded)
            } else {
                info.fallback = try encodePCM(request).fallback
            }
        } catch {
            // Once bytes are out, a fallback's reply would follow them as a second file.
            guard !wrote, let fallback = fallbackVoice(for: request.voice, after: error) else { throw error }
            var local = request
            local.voice = fallback
            entry.abandon()
            _ = try encodePCM(local)
            info.fallback = (fallback.name, String(describing: error))
        }
        if info.fallback == nil { entry.commit() } else { entry.abandon() }
        return info
    }

    /// PCM, from the cache when the reply was made before (decoded), else as it is synthesised,
    /// with the reply encoded in its format for the cache beside it. `maker` is the voice's, when
    /// the caller has looked it up already.
    private func samples(
        _ request: ReplyRequest, key: ReplyKey, maker known: Maker? = nil, onProgress: ((Double) -> Void)?,
        onChunk: (PCMChunk) throws -> Void
    ) throws -> ReplyInfo {
        let synthesis = request.synthesis
        func deliver(_ pcm: PCMBuffer) throws {
            try pcm.samples.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: pcm.sampleRate)) }
        }
        if let cached = cache?.data(for: key), let pcm = try? PCMBuffer(audio: cached) {
            try deliver(pcm)
            var info = ReplyInfo(tag: key.digest, fromCache: true)
            info.seconds = pcm.duration
            return info
        }
        try request.admit()
        let maker = try known ?? self.maker(for: synthesis.voice)
        // An engine that answers whole (an upstream) is stored as it came, then decoded.
        guard maker.streams else {
            var (data, info) = try whole(synthesis, key: key, maker: maker)
            let pcm = try PCMBuffer(audio: data)
            try deliver(pcm)
            info.seconds = pcm.duration
            return info
        }
        try refuseIfUnavailable(synthesis.voice)
        let entry = CacheEntry(self, key: key)
        var encoder = PaddedEncoder(format: synthesis.format, mp3: synthesis.mp3, codecs: codecs)
        var info = ReplyInfo(tag: key.digest, upstream: maker.upstream)
        let outcome = try synthesize(synthesis, onProgress: onProgress) { chunk in
            info.seconds += Double(chunk.samples.count) / Double(chunk.sampleRate)
            try onChunk(chunk)
            if entry.isOpen {
                do { entry.append(try encoder.encode(chunk)) } catch { entry.fail(error) }
            }
        }
        info.fallback = outcome.fallback
        if info.fallback == nil, entry.isOpen {
            do { entry.append(try encoder.finish()) } catch { entry.fail(error) }
            entry.commit()
        } else {
            entry.abandon()
        }
        return info
    }
}

extension Reply {
    /// The whole encoded reply, waited for: what a caller that keeps the bytes wants. Samples,
    /// which have no format of their own, are collected as a 16-bit WAV.
    public func collected() throws -> (Data, ReplyInfo) {
        switch self {
        case .unchanged(let info): return (Data(), info)
        case .ready(let data, let info): return (data, info)
        case .later(_, let make): return try make()
        case .stream(_, let write):
            var data = Data()
            let info = try write { data.append($0) }
            return (data, info)
        case .samples(let play):
            var encoder = PaddedEncoder(format: .wav, mp3: MP3Settings(), codecs: .builtIn)
            var data = Data()
            let info = try play(nil) { data.append(try encoder.encode($0)) }
            data.append(try encoder.finish())
            return (data, info)
        }
    }
}

/// A reply's cache entry while it is made: dropped at the first fault (logged once by the engine),
/// so the reply itself never depends on the cache.
private final class CacheEntry {
    private let engine: SpeechEngine
    private var entry: ReplyCache.Entry?

    init(_ engine: SpeechEngine, key: ReplyKey) {
        self.engine = engine
        guard let cache = engine.cache else { return }
        do { entry = try cache.beginEntry(for: key) } catch { engine.noteCacheFault(error) }
    }

    var isOpen: Bool { entry != nil }

    func append(_ bytes: Data) {
        guard let current = entry, !bytes.isEmpty else { return }
        do { try current.append(bytes) } catch { fail(error) }
    }

    func fail(_ error: any Error) {
        engine.noteCacheFault(error)
        abandon()
    }

    func commit() {
        guard let current = entry else { return }
        entry = nil
        do {
            try current.commit()
            engine.noteCacheStored()
        } catch { engine.noteCacheFault(error) }
    }

    func abandon() {
        entry?.abandon()
        entry = nil
    }

    deinit { entry?.abandon() }
}

/// Encodes a reply's chunks as they come. Next to nothing to say ("…", "()": no samples from
/// Piper, a few milliseconds from espeak-ng) is padded to a tenth of a second, so the reply is
/// still a file a player opens (not 0 bytes of AAC, a lone WAV header, an Ogg with no audio page).
private struct PaddedEncoder {
    let format: ReplyFormat
    let mp3: MP3Settings
    let codecs: Codecs
    private var encoder: ReplyEncoder?
    private var sampleCount = 0
    private var sampleRate = 24000

    init(format: ReplyFormat, mp3: MP3Settings, codecs: Codecs) {
        self.format = format
        self.mp3 = mp3
        self.codecs = codecs
    }

    mutating func encode(_ chunk: PCMChunk) throws -> Data {
        if encoder == nil {
            encoder = try ReplyEncoder(format: format, inputRate: chunk.sampleRate, mp3: mp3, codecs: codecs)
            sampleRate = chunk.sampleRate
        }
        sampleCount += chunk.samples.count
        return try encoder!.encode(chunk.samples)
    }

    mutating func finish() throws -> Data {
        if encoder == nil {
            encoder = try ReplyEncoder(format: format, inputRate: sampleRate, mp3: mp3, codecs: codecs)
        }
        var tail = Data()
        if sampleCount < sampleRate / 10 {
            let silence = [Int16](repeating: 0, count: sampleRate / 10 - sampleCount)
            tail = try silence.withUnsafeBufferPointer { try encoder!.encode($0) }
        }
        return try tail + encoder!.finish()
    }
}

extension SpeechEngine {
    /// Throws why `voice` cannot speak here, if its engine reports a problem.
    fileprivate func refuseIfUnavailable(_ voice: Voice) throws(SynthesisError) {
        if case .failure(let error)? = availability(of: voice) { throw error }
    }
}
