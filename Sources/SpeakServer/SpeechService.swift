import Foundation
import SpeakKit
import SpeakUpstream

/// The voice reply service behind `speak serve`: routes, auth and limits around the engine.
/// Cached replies are answered on the server's threads straight from disk; new ones stream from
/// the synthesis worker processes (or come from an upstream) on threads of their own.
public final class SpeechService: @unchecked Sendable {
    let configuration: ServerConfiguration
    let catalog: VoiceCatalog
    let workers: WorkerPool
    let cache: ReplyCache
    let tokens: TokenStore?
    let limiter: RateLimiter
    let upstreamClient: UpstreamClient
    let player: Player
    let transcriber: any Transcriber
    /// Where uploads are spooled while their request lasts.
    let uploads: URL

    /// OpenAI's voice names, answered by `default` unless a voice file takes the name.
    static let openAIVoices: Set = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"]
    static let models = ["speak-1", "tts-1", "tts-1-hd", "gpt-4o-mini-tts"]

    public init(
        configuration: ServerConfiguration, catalog: VoiceCatalog, workers: WorkerPool, cache: ReplyCache, tokens: TokenStore?,
        upstreamClient: UpstreamClient = UpstreamClient(), player: Player, transcriber: any Transcriber, uploads: URL
    ) {
        self.configuration = configuration
        self.catalog = catalog
        self.workers = workers
        self.cache = cache
        self.tokens = tokens
        self.limiter = RateLimiter(requestsPerMinute: configuration.rateLimitPerMinute, burst: configuration.rateLimitBurst)
        self.upstreamClient = upstreamClient
        self.player = player
        self.transcriber = transcriber
        self.uploads = uploads
    }

    /// Uploads (transcription) may be large and are spooled as they arrive; the rest is small JSON.
    public func bodyPolicy(method: String, path: String) -> HTTPServer.BodyPolicy {
        switch path {
        case "/api/transcribe", "/v1/audio/transcriptions": HTTPServer.BodyPolicy(maximumBytes: Self.maximumUploadBytes, multipartSpool: uploads)
        default: HTTPServer.BodyPolicy(maximumBytes: configuration.maximumBodyBytes)
        }
    }

    /// The route table.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            switch (request.method, request.path) {
            case ("GET", "/health"): return .json(["status": "ok"])
            case (_, "/health"): throw HTTPError(405, "use GET")
            default: break
            }
            try authorize(request)
            switch (request.method, request.path) {
            case ("GET", "/ready"): return ready()
            case ("GET", "/voices"): return voices()
            case ("GET", "/v1/models"): return models()
            case ("POST", "/api/speak"): return try speak(try SpeechOrder(json: request.body, service: self))
            case ("POST", "/speak"): return try speak(try SpeechOrder(json: request.body, service: self))
            case ("GET", "/speak"): return try speak(try SpeechOrder(query: request.query, service: self), ifNoneMatch: request.header("If-None-Match"))
            case ("POST", "/v1/audio/speech"): return try speak(try SpeechOrder(openAI: request.body, service: self))
            case ("POST", "/play"): return try play(try SpeechOrder(json: request.body, service: self))
            case ("POST", "/api/transcribe"): return try transcribe(request, openAI: false)
            case ("POST", "/v1/audio/transcriptions"): return try transcribe(request, openAI: true)
            case (_, "/ready"), (_, "/voices"), (_, "/v1/models"), (_, "/api/speak"), (_, "/speak"), (_, "/v1/audio/speech"), (_, "/play"),
                (_, "/api/transcribe"), (_, "/v1/audio/transcriptions"):
                throw HTTPError(405, "\(request.method) is not allowed on \(request.path)")
            default: throw HTTPError(404, "no such endpoint: \(request.path)", code: "not_found")
            }
        } catch let error as HTTPError {
            return error.response
        } catch {
            return HTTPError(500, String(describing: error)).response
        }
    }

    private func authorize(_ request: HTTPRequest) throws {
        var client = "anonymous"
        if let tokens {
            guard let name = tokens.authenticate(request.header("Authorization")) else {
                throw HTTPError(401, "a valid bearer token is required", code: "invalid_api_key", headers: [("WWW-Authenticate", "Bearer")])
            }
            client = name
        }
        if let wait = limiter.admit(client) {
            let seconds = Int(wait.rounded(.up))
            throw HTTPError(429, "rate limit reached; retry in \(seconds) s", code: "rate_limit_exceeded", headers: [("Retry-After", String(seconds))])
        }
    }

    func voice(named name: String?) throws -> Voice {
        let name = name ?? VoiceCatalog.defaultVoiceName
        do {
            return try catalog.voice(named: name)
        } catch {
            if Self.openAIVoices.contains(name.lowercased()) { return try! catalog.voice(named: VoiceCatalog.defaultVoiceName) }
            throw HTTPError(400, String(describing: error), param: "voice", code: "voice_not_found")
        }
    }

    // MARK: - Replies

    func speak(_ order: SpeechOrder, ifNoneMatch: String? = nil) throws -> HTTPResponse {
        let key = order.cacheKey
        let etag = "\"\(key.digest)\""
        var headers = [("Content-Type", order.format.contentType), ("ETag", etag), ("Cache-Control", "public, max-age=86400")]
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
            return HTTPResponse(status: 304, headers: headers.filter { $0.0 != "Content-Type" })
        }
        if let cached = cache.data(for: key) {
            return HTTPResponse(headers: headers + [("X-Speak-Cache", "hit")], body: .data(cached))
        }
        headers.append(("X-Speak-Cache", "miss"))
        if let upstream = order.voice.upstream {
            return HTTPResponse(body: .deferred { [self, headers] in fetch(order, from: upstream, headers: headers) })
        }
        return HTTPResponse(headers: headers, body: .stream { [self] write in try synthesize(order, key: key, write: write) })
    }

    /// Streams a new reply from a worker to the client and, as it goes, into the cache: the entry
    /// is committed only once the reply is complete.
    func synthesize(_ order: SpeechOrder, key: ReplyKey, write: (Data) throws -> Void) throws {
        let entry = try cache.beginEntry(for: key)
        do {
            try workers.synthesize(order.request) { chunk in
                try write(chunk)
                try entry.append(chunk)
            }
            try entry.commit()
        } catch {
            entry.abandon()
            throw error
        }
    }

    /// An upstream voice's reply; if the upstream fails, a local voice answers and says so.
    func fetch(_ order: SpeechOrder, from upstream: Upstream, headers: [(String, String)]) -> HTTPResponse {
        do {
            let mp3 = try upstreamClient.fetch(order.text, speed: order.speed, from: upstream)
            let reply = order.format == .mp3 ? mp3 : try transcode(mp3, to: order.format)
            try? cache.store(reply, for: order.cacheKey)
            return HTTPResponse(headers: headers + [("X-Speak-Upstream", upstream.url)], body: .data(reply))
        } catch {
            let fallbackName = upstream.fallback ?? VoiceCatalog.defaultVoiceName
            guard let fallback = try? catalog.voice(named: fallbackName), fallback.upstream == nil else {
                return HTTPError(502, "upstream failed and no local fallback voice: \(error)", code: "upstream_failed").response
            }
            var local = order
            local.voice = fallback
            var reply = Data()
            do {
                try workers.synthesize(local.request) { reply.append($0) }
            } catch {
                return HTTPError(500, "fallback synthesis failed: \(error)").response
            }
            let headers = headers.filter { $0.0 != "ETag" && $0.0 != "Cache-Control" } + [
                ("Cache-Control", "no-store"), ("X-Speak-Fallback", fallback.name), ("X-Speak-Upstream-Error", String(describing: error)),
            ]
            return HTTPResponse(headers: headers, body: .data(reply))
        }
    }

    private func transcode(_ mp3: Data, to format: ReplyFormat) throws -> Data {
        let pcm = try PCMBuffer(audio: mp3)
        let encoder = try ReplyEncoder(format: format, inputRate: pcm.sampleRate)
        return try pcm.samples.withUnsafeBufferPointer { try encoder.encode($0) } + encoder.finish()
    }

    /// Speaks on the server's own device, through the same playback lock as the command line,
    /// and answers once the speech has been heard.
    func play(_ order: SpeechOrder) throws -> HTTPResponse {
        HTTPResponse(body: .deferred { [self] in
            do {
                var mp3 = Data()
                try workers.synthesize(order.request) { mp3.append($0) }
                let pcm = try PCMBuffer(audio: mp3)
                try player.play(pcm)
                return .json(["played": true, "seconds": (pcm.duration * 1000).rounded() / 1000])
            } catch let error as ALSAError {
                return HTTPError(503, "cannot play on '\(error.device)': \(error.message)", code: "no_playback_device").response
            } catch {
                return HTTPError(500, String(describing: error)).response
            }
        })
    }

    // MARK: - Listings

    private func voices() -> HTTPResponse {
        .json([
            "voices": catalog.voices.map { voice in
                [
                    "name": voice.name, "language": voice.language, "description": voice.description,
                    "engine": voice.upstream == nil ? "espeak-ng" : "upstream",
                ]
            }
        ])
    }

    private func models() -> HTTPResponse {
        .json(["object": "list", "data": Self.models.map { ["id": $0, "object": "model", "created": 0, "owned_by": "speak"] }])
    }

    /// Ready when a worker synthesises and every upstream answers on its port.
    private func ready() -> HTTPResponse {
        var checks: [String: String] = [:]
        do {
            var bytes = 0
            let probe = try SpeechOrder(text: "ok", voice: try voice(named: nil), service: self)
            try workers.synthesize(probe.request) { bytes += $0.count }
            checks["engine"] = bytes > 0 ? "ok" : "no audio"
        } catch {
            checks["engine"] = String(describing: error)
        }
        for upstream in Set(catalog.voices.compactMap { $0.upstream?.url }) {
            checks[upstream] = acceptsConnections(upstream) ? "ok" : "unreachable"
        }
        let ready = checks.values.allSatisfy { $0 == "ok" }
        return .json(["ready": ready, "checks": checks], status: ready ? 200 : 503)
    }
}
