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
    /// `explains`: the upstream is another speak serve, whose refusals (4xx but the token's) are
    /// its own one-line reasons, safe and useful to pass on.
    static func send(_ request: URLRequest, timeout: Double, key: String?, explains: Bool = false) throws(UpstreamError)
        -> (Data, HTTPURLResponse)
    {
        guard let (data, response, error) = perform(request, timeout: timeout) else {
            throw UpstreamError(status: nil, message: "timed out after \(timeout) s", isRetryable: true)
        }
        if let error {
            let code = (error as? URLError)?.code
            let message =
                code == .timedOut ? "timed out after \(timeout) s" : "cannot reach \(request.url?.host ?? "upstream")"
            throw failure(
                status: nil, message: message, isRetryable: code != .badURL && code != .unsupportedURL, key: key)
        }
        guard let response else { throw failure(status: nil, message: "no HTTP response", isRetryable: true, key: key) }
        let body = data ?? Data()
        let status = response.statusCode
        guard status == 200 else {
            var message = summary(of: status, body: body, key: key)
            if explains, (400..<500).contains(status), ![401, 403].contains(status), let reason = reason(in: body) {
                message = redacted("\(message.prefix { $0 != ":" }): \(reason)", key: key)
            }
            var error = UpstreamError(
                status: status, message: message, isRetryable: status == 429 || (500...599).contains(status))
            if status == 429 {
                error.retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init)
            }
            throw error
        }
        return (body, response)
    }

    /// One request through the session, waited for `timeout` seconds at most; nil if it timed out.
    static func perform(_ request: URLRequest, timeout: Double) -> (Data?, HTTPURLResponse?, (any Error)?)? {
        let box = ResultBox()
        let task = session.dataTask(with: request) { data, response, error in
            box.set(data: data, response: response as? HTTPURLResponse, error: error)
        }
        task.resume()
        guard box.wait(seconds: timeout) else {
            task.cancel()
            return nil
        }
        return box.value
    }

    static func failure(status: Int?, message: String, isRetryable: Bool, key: String?) -> UpstreamError {
        UpstreamError(status: status, message: redacted(message, key: key), isRetryable: isRetryable)
    }

    /// One line about a refusal, in our words. The upstream's body is not passed on (but another
    /// speak serve's reason, ``send(_:timeout:key:explains:)``): error bodies echo keys back (OpenAI
    /// shows a masked key on 401; careless servers echo the header) and say things our clients need
    /// not see.
    static func summary(of status: Int, body: Data, key: String?) -> String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        let what =
            switch status {
            case 401, 403: "the upstream refused the key"
            case 429: "the upstream is rate limiting"
            case 400..<500: "the upstream rejected the request"
            default: "the upstream failed"
            }
        return "\(what): \(reason)"
    }

    /// `error.message` of an OpenAI-shaped error body, as speak serve answers, on one line.
    static func reason(in body: Data) -> String? {
        guard case .object(let object)? = try? JSONValue(parsing: body), case .object(let error)? = object["error"],
            case .string(let message)? = error["message"], !message.isEmpty
        else { return nil }
        return message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `message` with the key cut out, in any case, and any masked key (`sk-…****8e7d`,
    /// `gsk_ab**********cd`) an upstream may have shown.
    static func redacted(_ message: String, key: String?) -> String {
        var text = message
        if let key, !key.isEmpty { text = text.replacingOccurrences(of: key, with: "[key]", options: .caseInsensitive) }
        let range = NSRange(text.startIndex..., in: text)
        return maskedKey.stringByReplacingMatches(in: text, range: range, withTemplate: "[key]")
    }

    /// A word with a run of mask characters in it (`****`, `…`, `...` after a key-like prefix).
    private static let maskedKey = try! NSRegularExpression(
        pattern: #"[^\s"',;]*(\*{3,}|(?:\b(?:sk|gsk|pk|rk|key)[-_][^\s"',;]*?(?:…|\.{3})))[^\s"',;]*"#,
        options: [.caseInsensitive])

    /// No cookies, no cache, no redirects: the key goes only to the configured URL.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration, delegate: RedirectRefuser(), delegateQueue: nil)
    }()
}

/// Requests to another `speak serve` (`speak --remote`), through the same session as the upstream
/// clients: no cookies, no cache, and no redirects, so a token goes only where it was sent.
public enum ServerHTTP {
    /// The status and body of `request`'s answer, whatever the status; throws when there is none.
    public static func send(_ request: URLRequest, timeout: Double) throws -> (status: Int, body: Data) {
        guard let (data, response, error) = UpstreamHTTP.perform(request, timeout: timeout) else {
            throw URLError(.timedOut)
        }
        if let error { throw error }
        guard let response else { throw URLError(.badServerResponse) }
        return (response.statusCode, data ?? Data())
    }
}

/// Carries one task's outcome from URLSession's delegate queue to the waiting thread.
private final class ResultBox: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<(Data?, HTTPURLResponse?, Error?)>((nil, nil, nil))

    func set(data: Data?, response: HTTPURLResponse?, error: Error?) {
        result.withLock { $0 = (data, response, error) }
        done.signal()
    }

    /// False when `seconds` passed first.
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var value: (Data?, HTTPURLResponse?, Error?) { result.withLock { $0 } }
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
