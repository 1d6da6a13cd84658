import FoundationEssentials

/// What a front end asks the engine for: a reply to one ``SynthesisRequest``, delivered as it
/// can put it on its wire. The engine decides the rest: the cache, the fallback voice, refusals.
/// Values only, no closures made for each request: most replies are held ones, answered at once.
public struct ReplyRequest: Sendable {
    public var synthesis: SynthesisRequest
    public var delivery: Delivery
    /// Who asks, as ``admission`` knows them (a rate limit's client); `nil` for nobody to charge.
    public var client: String?
    /// Asked with ``client`` before a reply is made, never for one from the cache: a rate limit
    /// that refuses throws.
    public var admission: (any ReplyAdmission)?
    /// What the client holds already (HTTP's If-None-Match): when it holds this reply's tag, the
    /// reply is ``Reply/unchanged(_:)``, made or not.
    public var clientHolds: HeldReplies

    public enum Delivery: Sendable {
        /// Encoded in the request's format, streamed as it is made when its engine streams.
        case streamed
        /// Encoded, and made whole before its first byte, so a fallback voice is named before it
        /// and a proxy may retry it elsewhere.
        case whole
        /// PCM samples as they are made (the encoded reply is cached beside them).
        case samples
    }

    public init(
        _ synthesis: SynthesisRequest, delivery: Delivery = .streamed, client: String? = nil,
        admission: (any ReplyAdmission)? = nil, clientHolds: HeldReplies = .nothing
    ) {
        self.synthesis = synthesis
        self.delivery = delivery
        self.client = client
        self.admission = admission
        self.clientHolds = clientHolds
    }

    /// Asks ``admission``, if any, to let ``client`` have a reply made.
    func admit() throws { try admission?.admit(client) }
}

/// What decides whether a client may have a reply made (a rate limit). Asked only when one is.
public protocol ReplyAdmission: Sendable {
    /// Throws when `client` may not have a reply made now.
    func admit(_ client: String?) throws
}

/// The replies a client holds already, by tag (``ReplyInfo/tag``).
public enum HeldReplies: Sendable, Equatable {
    case nothing
    /// The tags it holds, as ``ReplyInfo/tag`` gives them (no quotes).
    case tags([String])
    /// Whatever the reply is (HTTP's `If-None-Match: *`).
    case any

    /// Whether the client holds the reply tagged `tag`.
    public func contains(_ tag: String) -> Bool {
        switch self {
        case .nothing: false
        case .tags(let tags): tags.contains(tag)
        case .any: true
        }
    }
}

/// How a reply came about, for the front end to tell its client.
public struct ReplyInfo: Sendable {
    /// Names this reply's bytes: equal tags, equal bytes (an ETag). `nil` for speech not kept.
    public var tag: String?
    public var fromCache = false
    /// The remote service that made it, if any.
    public var upstream: String?
    /// The voice that spoke instead of the one asked for, and why (its engine failed). Such a
    /// reply is not cached: the next request tries the engine again.
    public var fallback: (voice: String, reason: String)?
    /// How long the speech lasts, in seconds, when it was played or delivered as samples.
    public var seconds = 0.0

    public init(tag: String? = nil, fromCache: Bool = false, upstream: String? = nil) {
        self.tag = tag
        self.fromCache = fromCache
        self.upstream = upstream
    }
}

/// The engine's reply, for the front end to map onto its wire. The cases say on which thread the
/// work happens: none for `unchanged` and `ready`, the front end's own for the rest.
public enum Reply: Sendable {
    /// The client holds it already (``ReplyRequest/clientHolds``).
    case unchanged(ReplyInfo)
    /// The whole reply at hand (held in memory): answered at once, on any thread.
    case ready(Data, ReplyInfo)
    /// The whole reply, once `make` has read it from disk or made it: megabytes from disk or a
    /// remote engine's wait must not hold up a thread that answers others. The info is what is
    /// expected (a stored reply from the cache); `make` gives what came about (evicted since, and
    /// made again).
    case later(ReplyInfo, make: @Sendable () throws -> (Data, ReplyInfo))
    /// Encoded as it is made; what the info says holds before the first byte.
    case stream(ReplyInfo, write: @Sendable (_ write: (Data) throws -> Void) throws -> ReplyInfo)
    /// PCM as it is made or decoded from the cache (``ReplyRequest/Delivery/samples``). Throws
    /// before the first chunk when the voice cannot speak here.
    case samples(
        play: @Sendable (_ onProgress: ((Double) -> Void)?, _ onChunk: (PCMChunk) throws -> Void) throws -> ReplyInfo)
}
