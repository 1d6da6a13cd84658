import Foundation
import SpeakKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failed upstream fetch. The message is one line and never holds the API key.
public struct UpstreamError: Error, CustomStringConvertible, Sendable {
    /// The HTTP status, when the upstream answered.
    public let status: Int?
    public let message: String
    /// Whether trying again later may succeed (429, 5xx, timeouts, connection failures).
    public let isRetryable: Bool
    /// Seconds a 429 asked to wait (`Retry-After`), for the retry loop.
    var retryAfter: Double?

    public var description: String {
        "upstream: \(message)" + (status.map { " (HTTP \($0))" } ?? "")
    }
}

/// Fetches MP3 replies from an ``Upstream``, synchronously: the server calls it from
/// libmicrohttpd's threads, which are not Swift tasks.
public struct UpstreamClient: Sendable {
    public let maxAttempts: Int
    /// Seconds before the first retry; doubled for each retry after it.
    public let baseDelay: Double

    public init(maxAttempts: Int = 3, baseDelay: Double = 0.2) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
    }

    /// The MP3 bytes for `text` in the upstream's voice. `speed` is sent to OpenAI-style upstreams only.
    public func fetch(_ text: String, speed: Double?, from upstream: Upstream) throws(UpstreamError) -> Data {
        let key = Self.key(for: upstream)
        let request = try Self.request(text, speed: speed, upstream: upstream, key: key)
        let timeout = upstream.timeout ?? 30
        return try UpstreamHTTP.withRetries(maxAttempts: maxAttempts, baseDelay: baseDelay) {
            () throws(UpstreamError) in
            try Self.attempt(request, timeout: timeout, key: key)
        }
    }

    /// The API key: `keyEnvironment`'s value, else the first line of `keyFile`; nil when neither holds one.
    static func key(for upstream: Upstream) -> String? {
        UpstreamHTTP.key(environment: upstream.keyEnvironment, file: upstream.keyFile)
    }

    private struct OpenAIBody: Encodable {
        var model: String
        var input: String
        var voice: String
        var responseFormat = "mp3"
        var speed: Double

        enum CodingKeys: String, CodingKey {
            case model, input, voice
            case responseFormat = "response_format"
            case speed
        }
    }

    private struct SpeakBody: Encodable {
        var text: String
        var voice: String
    }

    static func request(_ text: String, speed: Double?, upstream: Upstream, key: String?) throws(UpstreamError)
        -> URLRequest
    {
        let url = try UpstreamHTTP.endpoint(upstream.url, upstream.api == .openai ? "/v1/audio/speech" : "/api/speak")
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        // The exact timeout is the caller's deadline (see `UpstreamHTTP.send`); this one only bounds the socket.
        request.timeoutInterval = UpstreamHTTP.socketTimeout(upstream.timeout ?? 30)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("audio/mpeg", forHTTPHeaderField: "Accept")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        request.httpBody =
            switch upstream.api {
            case .openai:
                try? encoder.encode(
                    OpenAIBody(model: upstream.model ?? "tts-1", input: text, voice: upstream.voice, speed: speed ?? 1))
            case .speak:
                try? encoder.encode(SpeakBody(text: text, voice: upstream.voice))
            }
        return request
    }

    /// One request, waited for `timeout` seconds at most; a 200 must carry audio.
    private static func attempt(_ request: URLRequest, timeout: Double, key: String?) throws(UpstreamError) -> Data {
        let (body, response) = try UpstreamHTTP.send(request, timeout: timeout, key: key)
        let contentType = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        guard !body.isEmpty, contentType.hasPrefix("audio/") || looksLikeMP3(body) else {
            let message = "reply is not audio (Content-Type \(contentType.isEmpty ? "none" : contentType))"
            throw UpstreamHTTP.failure(status: response.statusCode, message: message, isRetryable: false, key: key)
        }
        return body
    }

    /// An MP3 starts with an ID3 tag or an MPEG audio frame sync (eleven set bits).
    static func looksLikeMP3(_ data: Data) -> Bool {
        let bytes = Array(data.prefix(3))
        guard bytes.count >= 2 else { return false }
        return bytes.starts(with: Array("ID3".utf8)) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
    }
}
