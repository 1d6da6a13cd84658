import Foundation
import SpeakKit

/// The HTTP face of the ``SpeechEngine`` behind `speak serve`: routes, auth and limits, and the
/// mapping of requests and errors. Cached replies are answered on the server's threads; new ones
/// stream from the engine on threads of the server's streaming pool.
public final class SpeechService: Sendable {
    let configuration: ServerConfiguration
    let engine: SpeechEngine
    let tokens: TokenStore?
    let limiter: RateLimiter
    let player: Player
    /// Decodes and transcribes uploads: composed with the server's decoder, once.
    let transcription: TranscriptionEngine
    /// Where uploads are spooled while their request lasts.
    let uploads: URL

    static let models = ["speak-1", "tts-1", "tts-1-hd", "gpt-4o-mini-tts"]
    /// The names clients send to transcribe and translate: each is this server's transcriber.
    static let transcriptionModels = ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]

    /// One of ``models``, or an OpenAI snapshot of one (`gpt-4o-mini-tts-2025-12-15`, `tts-1-1106`),
    /// which clients pin and the openai package lists.
    static func isModel(_ name: String) -> Bool {
        models.contains { model in
            guard name.hasPrefix(model) else { return false }
            let snapshot = name.dropFirst(model.count)
            return snapshot.isEmpty
                || snapshot.wholeMatch(of: /-[0-9]{4}(-[0-9]{2}-[0-9]{2})?/) != nil
        }
    }

    public init(
        configuration: ServerConfiguration, engine: SpeechEngine, tokens: TokenStore?, player: Player,
        transcription: TranscriptionEngine, uploads: URL
    ) {
        self.configuration = configuration
        self.engine = engine
        self.tokens = tokens
        self.limiter = RateLimiter(
            requestsPerMinute: configuration.rateLimitPerMinute, burst: configuration.rateLimitBurst)
        self.player = player
        self.transcription = transcription
        self.uploads = uploads
        // Found now, not on the first request: it asks every voice's engine.
        _ = engine.openAIVoice
    }

    // MARK: - Routes

    /// One endpoint: what answers it, whether it needs a token, and what body it takes.
    struct Route: Sendable {
        enum Body: Sendable { case json, upload }
        let method: String
        let path: String
        var open = false
        var body = Body.json
        /// Charged to the client's rate limit only when it makes a new reply: a cache hit (or a
        /// 304) costs next to nothing, so it is free.
        var freeWhenCached = false
        /// A WebSocket, whose token may come as a subprotocol: a browser cannot set Authorization on one.
        var webSocket = false
        let handle: @Sendable (SpeechService, HTTPRequest) throws -> HTTPResponse
    }

    /// The route table: adding an endpoint is one line. 404 and 405 (with `Allow`) follow from it.
    static let routes: [Route] =
        [
            Route(method: "GET", path: "/", open: true) { _, _ in WebPage.response },
            Route(method: "GET", path: "/health", open: true) { _, _ in .json(["status": "ok"]) },
            // It synthesises: on the response threads, as replies are, not a connection thread.
            Route(method: "GET", path: "/ready") { service, _ in HTTPResponse(body: .deferred { service.ready() }) },
            Route(method: "GET", path: "/voices") { service, _ in service.voices() },
            // 204 for a valid token, 401 otherwise, never charged: what a proxy asks (nginx's
            // auth_request) before it answers from its cache, so a revoked token gets nothing more.
            Route(method: "GET", path: "/token", freeWhenCached: true) { _, _ in HTTPResponse(status: 204) },
            Route(method: "GET", path: "/v1/models") { service, _ in service.models() },
            Route(method: "GET", path: "/v1/audio/voices") { service, _ in service.openAIVoiceList() },
            Route(method: "POST", path: "/api/speak", freeWhenCached: true) {
                try $0.speak(SpeechOrder(json: $1.body, service: $0), client: $1.client)
            },
            Route(method: "POST", path: "/speak", freeWhenCached: true) {
                try $0.speak(SpeechOrder(json: $1.body, service: $0), client: $1.client)
            },
            // The cacheable, retryable route: answered whole (a URL-sized text), so a proxy can retry it
            // on another instance until its first byte. The POST routes stream.
            Route(method: "GET", path: "/speak", freeWhenCached: true) {
                try $0.speak(
                    SpeechOrder(query: $1.query, service: $0), ifNoneMatch: $1.header("If-None-Match"),
                    client: $1.client,
                    whole: true)
            },
            Route(method: "POST", path: "/v1/audio/speech", freeWhenCached: true) {
                try $0.speak(SpeechOrder(openAI: $1.body, service: $0), client: $1.client)
            },
            Route(method: "POST", path: "/play") { try $0.play(SpeechOrder(json: $1.body, service: $0)) },
            Route(method: "POST", path: "/api/transcribe", body: .upload) { try $0.transcribe($1, openAI: false) },
            Route(method: "POST", path: "/v1/audio/transcriptions", body: .upload) {
                try $0.transcribe($1, openAI: true)
            },
            Route(method: "POST", path: "/v1/audio/translations", body: .upload) {
                try $0.transcribe($1, openAI: true, translate: true)
            },
            // OpenAI's Realtime API, transcription sessions: a WebSocket (RealtimeTranscription).
            Route(method: "GET", path: "/v1/realtime", webSocket: true) { try $0.realtime($1) },
        ]
        // One model each, as the openai package's `models.retrieve("tts-1")` asks.
        + (models + transcriptionModels).map { id in
            Route(method: "GET", path: "/v1/models/\(id)") { _, _ in .json(model(id)) }
        }

    private static let routesByPath = Dictionary(grouping: routes, by: \.path)

    /// Uploads (transcription) may be large and are spooled as they arrive; the rest is small JSON.
    public func bodyPolicy(method: String, path: String) -> HTTPServer.BodyPolicy {
        switch Self.route(method, path)?.body {
        case .upload: HTTPServer.BodyPolicy(maximumBytes: Self.maximumUploadBytes, multipartSpool: uploads)
        default: HTTPServer.BodyPolicy(maximumBytes: configuration.maximumBodyBytes)
        }
    }

    /// An upload without a valid token is refused from the request's head, before its body (up to
    /// 25 MB, spooled to disk) is taken in. Only uploads: other bodies are small, held in memory,
    /// and their routes the fast ones, which a second token check would slow.
    public func screen(_ request: HTTPRequest) -> HTTPResponse? {
        guard let route = Self.route(request.method, request.path), case .upload = route.body, !route.open else {
            return nil
        }
        do {
            _ = try authenticate(request)
            return nil
        } catch {
            return Self.response(for: error)
        }
    }

    /// The route taking `method` on `path` as it is named (no HEAD for GET), or `nil`.
    private static func route(_ method: String, _ path: String) -> Route? {
        routesByPath[path]?.first(where: { $0.method == method })
    }

    private func route(for request: HTTPRequest) throws -> Route {
        guard let routes = Self.routesByPath[request.path] else {
            throw HTTPError(404, "no such endpoint: \(request.path)", code: "not_found")
        }
        // HEAD is GET without the body (libmicrohttpd leaves it out), wherever GET works.
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let route = routes.first(where: { $0.method == method }) else {
            let allowed = routes.flatMap { $0.method == "GET" ? ["GET", "HEAD"] : [$0.method] }
                .joined(separator: ", ")
            throw HTTPError(
                405, "\(request.method) is not allowed on \(request.path); use \(allowed)",
                headers: [("Allow", allowed)])
        }
        return route
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var request = request
        do {
            let route = try route(for: request)
            if !route.open {
                request.client = try authenticate(request, webSocket: route.webSocket)
                if !route.freeWhenCached { try admit(request.client) }
            }
            return try route.handle(self, request)
        } catch {
            return Self.response(for: error)
        }
    }

    /// Every error as an HTTP answer: the client's mistakes are 4xx, our faults 5xx.
    static func response(for error: any Error) -> HTTPResponse {
        var response: HTTPResponse =
            switch error {
            case let error as HTTPError: error.response
            // A remote engine that failed, where no local voice answered for it.
            case let error as any FallbackEligible:
                HTTPError(502, "upstream failed and no local fallback voice: \(error)", code: "upstream_failed")
                    .response
            case let error as SynthesisError:
                HTTPError(503, String(describing: error), code: "engine_unavailable").response
            case let error as PlaybackError:
                HTTPError(503, "cannot play: \(error)", code: "no_playback_device").response
            default: HTTPError(500, String(describing: error)).response
            }
        // A worker that died: a deferred reply is made once more, as nothing of it was sent.
        response.worthRetrying = (error as? any TransientError)?.isTransient == true
        return response
    }

    /// The client's name (its token's), or without a tokens file "anonymous" and its address, so
    /// each address has its own rate limit; 401 without a valid token. The local user, on the local
    /// socket, needs none and has no rate limit. A WebSocket's token may instead be offered as the
    /// subprotocol `openai-insecure-api-key.TOKEN`, as OpenAI's browser clients send it; only there,
    /// so no cacheable reply is ever made for a token the cache's key (Authorization) does not hold.
    private func authenticate(_ request: HTTPRequest, webSocket: Bool = false) throws -> String? {
        if request.viaLocalSocket { return nil }
        guard let tokens else { return "anonymous " + (request.address ?? "") }
        var authorization = request.header("Authorization")
        if authorization == nil, webSocket, let token = RealtimeTranscription.subprotocolToken(request) {
            authorization = "Bearer " + token
        }
        guard let name = tokens.authenticate(authorization) else {
            throw HTTPError(
                401, "a valid bearer token is required", code: "invalid_api_key",
                headers: [("WWW-Authenticate", "Bearer")])
        }
        return name
    }

    /// Takes one request from the client's rate limit, or 429.
    public func admit(_ client: String?) throws {
        guard let client else { return }
        if let wait = limiter.admit(client) {
            let seconds = Int(wait.rounded(.up))
            throw HTTPError(
                429, "rate limit reached; retry in \(seconds) s", code: "rate_limit_exceeded",
                headers: [("Retry-After", String(seconds))])
        }
    }

    /// What `/v1/audio/speech` speaks with when no voice of ours is named: the most natural
    /// installed English voice.
    func openAIVoice(named name: String?) throws -> Voice {
        guard let name else { return engine.openAIVoice }
        return try voice(named: name)
    }

    /// The voice named `name` (the default for `nil`). Whether it can speak here is asked only of a
    /// reply that is made (``SpeechEngine/reply(_:)``): one made before is served from the cache.
    func voice(named name: String?) throws -> Voice {
        do {
            return try engine.resolveVoice(named: name, refusingUnavailable: false)
        } catch {
            throw HTTPError(400, String(describing: error), param: "voice", code: "voice_not_found")
        }
    }

    // MARK: - Replies

    /// A cached reply (or a 304) is free; a new one is charged to `client`'s rate limit.
    func speak(_ order: SpeechOrder, ifNoneMatch: String? = nil, client: String?, whole: Bool = false) throws
        -> HTTPResponse
    {
        if order.streamFormat == .sse { return try speakEvents(order, client: client) }
        let reply = try engine.reply(
            ReplyRequest(
                order.request, delivery: whole ? .whole : .streamed, client: client, admission: self,
                clientHolds: Self.held(ifNoneMatch)))
        let contentType = order.format.contentType
        switch reply {
        case .unchanged(let info):
            return HTTPResponse(status: 304, headers: Self.headers(info, contentType: nil))
        case .ready(let data, let info):
            return HTTPResponse(headers: Self.headers(info, contentType: contentType), body: .data(data))
        case .later(_, let make):
            return HTTPResponse(
                body: .deferred {
                    do {
                        let (data, info) = try make()
                        return HTTPResponse(headers: Self.headers(info, contentType: contentType), body: .data(data))
                    } catch {
                        return Self.response(for: error)
                    }
                })
        case .stream(let info, let write):
            return HTTPResponse(
                headers: Self.headers(info, contentType: contentType), body: .stream { _ = try write($0) })
        case .samples:
            preconditionFailure("an encoded delivery is not samples")
        }
    }

    /// The tags an If-None-Match header names, compared weakly as RFC 9110 asks: a proxy that
    /// compressed the reply marks its tag weak (W/"…"). `*` holds any reply; an unquoted tag none.
    static func held(_ ifNoneMatch: String?) -> HeldReplies {
        guard let ifNoneMatch else { return .nothing }
        var tags: [String] = []
        for item in ifNoneMatch.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)[...]
            if tag == "*" { return .any }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            guard tag.count >= 2, tag.first == "\"", tag.last == "\"" else { continue }
            tags.append(String(tag.dropFirst().dropLast()))
        }
        return .tags(tags)
    }

    /// A reply's headers. Public, so a shared cache (nginx) may keep it, but only per
    /// Authorization: one token's reply is never served to another, and the cache keys on a hash
    /// of the header, not the token. A fallback voice that answered for a remote engine says so,
    /// and is not cached by anyone.
    private static func headers(_ info: ReplyInfo, contentType: String?) -> [(String, String)] {
        // Sized once: a hit's headers are on the path of every cached reply.
        var headers: [(String, String)] = []
        headers.reserveCapacity(7)
        if let contentType { headers.append(("Content-Type", contentType)) }
        if let fallback = info.fallback {
            headers += [
                ("Vary", "Authorization"), ("Cache-Control", "no-store"), ("X-Speak-Cache", "miss"),
                ("X-Speak-Fallback", fallback.voice), ("X-Speak-Upstream-Error", fallback.reason),
            ]
            return headers
        }
        if let tag = info.tag { headers.append(("ETag", "\"\(tag)\"")) }
        headers.append(("Cache-Control", "public, max-age=86400"))
        headers.append(("Vary", "Authorization"))
        guard contentType != nil else { return headers }
        headers.append(("X-Speak-Cache", info.fromCache ? "hit" : "miss"))
        if let upstream = info.upstream { headers.append(("X-Speak-Upstream", upstream)) }
        return headers
    }

    /// Speaks on the server's own device, through the same playback lock as the command line,
    /// and answers once the speech has been heard: from the cache when it was made before, and
    /// naming the fallback voice that spoke if the voice's engine failed.
    func play(_ order: SpeechOrder) throws -> HTTPResponse {
        HTTPResponse(
            body: .deferred { [self] in
                do {
                    let outcome = try engine.play(order.request, on: player)
                    let headers = outcome.fallback.map { fallback in
                        [("X-Speak-Fallback", fallback.voice), ("X-Speak-Upstream-Error", fallback.reason)]
                    }
                    return .json(
                        ["played": true, "seconds": .number((outcome.seconds * 1000).rounded() / 1000)],
                        headers: headers ?? [])
                } catch {
                    return Self.response(for: error)
                }
            })
    }

    // MARK: - Listings

    private func voices() -> HTTPResponse {
        .json([
            "voices": .array(
                engine.catalog.voices.map { voice in
                    [
                        "name": .string(voice.name), "language": .string(voice.language),
                        "description": .string(voice.description), "engine": .string(voice.engine),
                    ]
                })
        ])
    }

    private static func model(_ id: String) -> JSONValue {
        ["id": .string(id), "object": "model", "created": 0, "owned_by": "speak"]
    }

    private func models() -> HTTPResponse {
        .json([
            "object": "list",
            "data": .array((Self.models + Self.transcriptionModels).map(Self.model)),
        ])
    }

    /// Ready when the default voice synthesises, every engine's voices can speak, and the cache works;
    /// the live sessions' voice activity detector is shown.
    private func ready() -> HTTPResponse {
        var checks: [String: String] = [:]
        do {
            var samples = 0
            try engine.synthesize(SpeechOrder(text: "ok", voice: try voice(named: nil), service: self).request) {
                samples += $0.samples.count
            }
            checks["engine"] = samples > 0 ? "ok" : "no audio"
        } catch {
            checks["engine"] = String(describing: error)
        }
        for (name, voices) in Dictionary(grouping: engine.catalog.voices, by: \.engine) {
            guard let synthesizer = try? engine.synthesizers.synthesizer(for: name) else { continue }
            checks.merge(synthesizer.problems(with: voices)) { first, _ in first }
        }
        if let problem = engine.cacheProblem { checks["cache"] = problem }
        let activity = transcription.voiceActivity
        checks["voice-activity:\(activity.name)"] = activity.problem() ?? "ok"
        // A voice whose model is missing answers 503 itself, and live sessions without their
        // detector tell turns by level: the server is ready without either.
        let ready = checks.allSatisfy {
            $0.key.hasPrefix("voice:") || $0.key.hasPrefix("voice-activity:") || $0.value == "ok"
        }
        return .json(
            ["ready": .bool(ready), "checks": .object(checks.mapValues(JSONValue.string))], status: ready ? 200 : 503)
    }
}

/// The rate limit, asked by the engine only when a reply is made (a cache hit or a 304 is free).
extension SpeechService: ReplyAdmission {}
