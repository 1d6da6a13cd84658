import FoundationEssentials

/// The engine's answer to "is this reply made already?", so a front end asks one question and maps
/// the answer, and never reaches into the cache or a synthesizer's features itself.
extension SpeechEngine {
    /// How a reply is answered.
    public enum ReplyDecision: Sendable {
        /// Held in memory: answered at once, on any thread.
        case held(Data)
        /// In a file: read with ``storedReply(_:)`` off the connection threads (megabytes from disk
        /// must not hold up other hits); it may be gone or damaged by then.
        case stored(ReplyKey)
        /// Not made yet: ``plan(_:whole:)`` says how it is made.
        case make
    }

    /// Whether `request`'s reply is held, stored, or to be made. Reads no file.
    public func decision(for request: SynthesisRequest) -> ReplyDecision {
        decision(for: cacheKey(for: request))
    }

    /// The same for a request whose key the front end has already (for its ETag): a hit is
    /// answered with one key made, not two.
    public func decision(for key: ReplyKey) -> ReplyDecision {
        guard let cache else { return .make }
        if let held = cache.heldData(for: key) { return .held(held) }
        return cache.hasStoredEntry(for: key) ? .stored(key) : .make
    }

    /// The stored reply read and checked, or `nil` when it was evicted or damaged since it was seen
    /// (then it is made again).
    public func storedReply(_ key: ReplyKey) -> Data? {
        cache?.storedData(for: key)
    }

    /// How a new reply is made.
    public struct ReplyPlan: Sendable {
        /// The remote service that makes it, if any.
        public var upstream: String?
        /// Streamed as it is encoded (``encodeReply(_:write:)``); else made whole (``reply(_:)``),
        /// so a fallback voice can be named before the first byte.
        public var streams: Bool
    }

    /// How `request`'s reply is made: streamed when its engine streams and `whole` is not asked,
    /// else whole. A voice that cannot speak here is refused before a streamed reply starts, so the
    /// front end answers with an error, not a reply cut off after its first bytes.
    public func plan(_ request: SynthesisRequest, whole: Bool = false) throws -> ReplyPlan {
        let synthesizer = try synthesizer(for: request.voice)
        let streams = synthesizer.features.contains(.streaming) && !whole
        if streams { try refuseIfUnavailable(request.voice) }
        return ReplyPlan(upstream: synthesizer.source(of: request.voice), streams: streams)
    }

    /// Throws why `voice` cannot speak here, if its engine reports a problem.
    public func refuseIfUnavailable(_ voice: Voice) throws(SynthesisError) {
        if case .failure(let error)? = availability(of: voice) { throw error }
    }
}
