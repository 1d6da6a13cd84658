import Foundation

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

    /// The longest `Retry-After` worth waiting for inside one request; longer ones fail at once
    /// so the caller can fall back to a local voice.
    static let maxRetryAfter = 10.0

    public init(maxAttempts: Int = 3, baseDelay: Double = 0.2) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
    }

    /// The MP3 bytes for `text` in the upstream's voice. `speed` is sent to OpenAI-style upstreams only.
    public func fetch(_ text: String, speed: Double?, from upstream: Upstream) throws(UpstreamError) -> Data {
        let key = Self.key(for: upstream)
        let request = try Self.request(text, speed: speed, upstream: upstream, key: key)
        let timeout = upstream.timeout ?? 30
        var attempt = 1
        while true {
            do throws(UpstreamError) {
                return try Self.attempt(request, timeout: timeout, key: key)
            } catch {
                guard error.isRetryable, attempt < maxAttempts else { throw error }
                let backoff = baseDelay * pow(2, Double(attempt - 1)) * Double.random(in: 1...1.5)
                var delay = backoff
                if let retryAfter = error.retryAfter {
                    guard retryAfter <= Self.maxRetryAfter else { throw error }
                    delay = max(retryAfter, backoff)
                }
                Thread.sleep(forTimeInterval: delay)
                attempt += 1
            }
        }
    }

    /// The API key: `keyEnvironment`'s value, else the first line of `keyFile`; nil when neither holds one.
    static func key(for upstream: Upstream) -> String? {
        if let name = upstream.keyEnvironment, let value = ProcessInfo.processInfo.environment[name] {
            let key = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        if let path = upstream.keyFile, let contents = try? String(contentsOfFile: path, encoding: .utf8) {
            let key = (contents.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        return nil
    }

    private struct OpenAIBody: Encodable {
        var model: String
        var input: String
        var voice: String
        var response_format = "mp3"
        var speed: Double
    }

    private struct SpeakBody: Encodable {
        var text: String
        var voice: String
    }

    static func request(_ text: String, speed: Double?, upstream: Upstream, key: String?) throws(UpstreamError) -> URLRequest {
        let base = upstream.url.hasSuffix("/") ? String(upstream.url.dropLast()) : upstream.url
        let path = upstream.api == .openai ? "/v1/audio/speech" : "/api/speak"
        guard let url = URL(string: base + path), url.scheme == "http" || url.scheme == "https" else {
            throw UpstreamError(status: nil, message: "invalid upstream URL \(upstream.url)", isRetryable: false)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        // The exact timeout is the caller's deadline (see `attempt`); this one only bounds the
        // socket, since corelibs Foundation truncates it to whole seconds (0.5 s fires at once).
        request.timeoutInterval = (upstream.timeout ?? 30).rounded(.up) + 1
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("audio/mpeg", forHTTPHeaderField: "Accept")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        request.httpBody =
            switch upstream.api {
            case .openai:
                try? encoder.encode(OpenAIBody(model: upstream.model ?? "tts-1", input: text, voice: upstream.voice, speed: speed ?? 1))
            case .speak:
                try? encoder.encode(SpeakBody(text: text, voice: upstream.voice))
            }
        return request
    }

    /// One request, waited for on a semaphore for `timeout` seconds at most.
    private static func attempt(_ request: URLRequest, timeout: Double, key: String?) throws(UpstreamError) -> Data {
        let box = ResultBox()
        let task = session.dataTask(with: request) { data, response, error in
            box.set(data: data, response: response as? HTTPURLResponse, error: error)
        }
        task.resume()
        guard box.wait(seconds: timeout) else {
            task.cancel()
            throw UpstreamError(status: nil, message: "timed out after \(timeout) s", isRetryable: true)
        }
        let (data, response, error) = box.value
        if let error {
            let code = (error as? URLError)?.code
            let message = code == .timedOut ? "timed out after \(timeout) s" : "cannot reach \(request.url?.host ?? "upstream")"
            throw failure(status: nil, message: message, isRetryable: code != .badURL && code != .unsupportedURL, key: key)
        }
        guard let response else { throw failure(status: nil, message: "no HTTP response", isRetryable: true, key: key) }
        let body = data ?? Data()
        let status = response.statusCode
        guard status == 200 else {
            var error = UpstreamError(
                status: status, message: summary(of: status, body: body, key: key),
                isRetryable: status == 429 || (500...599).contains(status))
            if status == 429 { error.retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init) }
            throw error
        }
        let contentType = response.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
        guard !body.isEmpty, contentType.hasPrefix("audio/") || looksLikeMP3(body) else {
            let message = "reply is not audio (Content-Type \(contentType.isEmpty ? "none" : contentType))"
            throw failure(status: status, message: message, isRetryable: false, key: key)
        }
        return body
    }

    private static func failure(status: Int?, message: String, isRetryable: Bool, key: String?) -> UpstreamError {
        UpstreamError(status: status, message: redacted(message, key: key), isRetryable: isRetryable)
    }

    /// One line about a refusal, with the start of the upstream's own explanation. Error bodies can
    /// echo the key back (OpenAI shows a masked key on 401), so 401/403 bodies are dropped and the
    /// key is cut out of the rest.
    static func summary(of status: Int, body: Data, key: String?) -> String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        guard status != 401, status != 403 else { return "the upstream refused the key: \(reason)" }
        let text = String(decoding: body.prefix(400), as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        let snippet = text.count > 160 ? text.prefix(160) + "…" : text
        return redacted(snippet.isEmpty ? reason : "\(reason): \(snippet)", key: key)
    }

    static func redacted(_ message: String, key: String?) -> String {
        guard let key, !key.isEmpty else { return message }
        return message.replacingOccurrences(of: key, with: "[key]")
    }

    /// An MP3 starts with an ID3 tag or an MPEG audio frame sync (eleven set bits).
    static func looksLikeMP3(_ data: Data) -> Bool {
        let bytes = Array(data.prefix(3))
        guard bytes.count >= 2 else { return false }
        return bytes.starts(with: Array("ID3".utf8)) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
    }

    /// No cookies, no cache, no redirects: the key goes only to the configured URL.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration, delegate: RedirectRefuser(), delegateQueue: nil)
    }()
}

/// Carries one task's outcome from URLSession's delegate queue to the waiting thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: (Data?, HTTPURLResponse?, Error?) = (nil, nil, nil)

    func set(data: Data?, response: HTTPURLResponse?, error: Error?) {
        lock.withLock { result = (data, response, error) }
        done.signal()
    }

    /// False when `seconds` passed first.
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var value: (Data?, HTTPURLResponse?, Error?) { lock.withLock { result } }
}

/// Answers a redirect with the redirect itself, so the Authorization header never follows it elsewhere.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
