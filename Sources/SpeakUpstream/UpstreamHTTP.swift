import Foundation
import SpeakKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every upstream client shares: the key, one synchronous request with an exact deadline, and
/// the retry loop. Synchronous because the server calls upstreams from libmicrohttpd's threads,
/// which are not Swift tasks.
enum UpstreamHTTP {
    /// The longest `Retry-After` worth waiting for inside one request; longer ones fail at once
    /// so the caller can fall back (a local voice, or keeping the recording for later).
    static let maxRetryAfter = 10.0

    /// The API key: `environment`'s value, else the first line of `file`; nil when neither holds one.
    static func key(environment: String?, file: String?) -> String? {
        if let name = environment, let value = ProcessInfo.processInfo.environment[name] {
            let key = value.trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        if let path = file, let contents = try? String(contentsOfFile: path, encoding: .utf8) {
            let key = (contents.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        return nil
    }

    /// `base` (with or without a trailing slash) followed by `path`, if it is an http(s) URL.
    static func endpoint(_ base: String, _ path: String) throws(UpstreamError) -> URL {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let url = URL(string: trimmed + path), url.scheme == "http" || url.scheme == "https" else {
            throw UpstreamError(status: nil, message: "invalid upstream URL \(base)", isRetryable: false)
        }
        return url
    }

    /// The socket timeout for a request whose real deadline is `timeout` (enforced by `send`):
    /// corelibs Foundation truncates it to whole seconds, so 0.5 s would fire at once.
    static func socketTimeout(_ timeout: Double) -> Double { timeout.rounded(.up) + 1 }

    /// Runs `attempt` up to `maxAttempts` times while it fails retryably, backing off exponentially
    /// from `baseDelay` (with jitter) or for as long as a 429's `Retry-After` asks.
    static func withRetries<T>(
        maxAttempts: Int, baseDelay: Double, _ attempt: () throws(UpstreamError) -> T
    ) throws(UpstreamError) -> T {
        var number = 1
        while true {
            do throws(UpstreamError) {
                return try attempt()
            } catch {
                guard error.isRetryable, number < maxAttempts else { throw error }
                let backoff = baseDelay * pow(2, Double(number - 1)) * Double.random(in: 1...1.5)
                var delay = backoff
                if let retryAfter = error.retryAfter {
                    guard retryAfter <= maxRetryAfter else { throw error }
                    delay = max(retryAfter, backoff)
                }
                Thread.sleep(forTimeInterval: delay)
                number += 1
            }
        }
    }

    /// One request, waited for on a semaphore for `timeout` seconds at most. Returns the body and
    /// response of a 200; anything else throws, retryable for 429, 5xx, timeouts and lost connections.
    static func send(_ request: URLRequest, timeout: Double, key: String?) throws(UpstreamError) -> (Data, HTTPURLResponse) {
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
        return (body, response)
    }

    static func failure(status: Int?, message: String, isRetryable: Bool, key: String?) -> UpstreamError {
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
