import Foundation
import SpeakCLI
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `speak --remote URL "text"`: asks another machine's `speak serve` to say it (`POST /play`),
/// and returns once it has been heard there.
struct RemoteSpeaker {
    let url: URL
    let token: String?

    init(url: String, token: String?) throws {
        guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https" else {
            throw UsageError("--remote needs an http(s) URL, not '\(url)'")
        }
        self.url = base.appendingPathComponent("play")
        self.token = token ?? ProcessInfo.processInfo.environment["SPEAK_TOKEN"]
    }

    func play(_ text: String, options: Options) throws {
        var request = URLRequest(url: url, timeoutInterval: 600)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        var body: [String: Any] = ["text": text]
        body["voice"] = options.voiceName
        body["rate"] = options.rate
        body["pitch"] = options.pitch
        request.httpBody = try JSONSerialization.data(withJSONObject: body)

        let (status, data) = try Self.send(request)
        let message =
            ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])
            .flatMap { ($0["error"] as? [String: Any])?["message"] as? String } ?? "HTTP \(status)"
        switch status {
        case 200: return
        case 401:
            throw InputError(
                code: .noPermission,
                message: "\(url.host ?? "server") refused the token: set SPEAK_TOKEN or --token (\(message))")
        case 400, 404, 413: throw InputError(code: .usage, message: "\(url.host ?? "server"): \(message)")
        case 429: throw InputError(code: .busy, message: "\(url.host ?? "server") is rate limiting: \(message)")
        case 503: throw InputError(code: .unavailable, message: "\(url.host ?? "server") cannot play: \(message)")
        default: throw InputError(code: .failure, message: "\(url.host ?? "server"): \(message)")
        }
    }

    /// Through the redirect-refusing session the upstream clients use: the token goes only to `url`.
    private static func send(_ request: URLRequest) throws -> (Int, Data) {
        do {
            return try ServerHTTP.send(request, timeout: request.timeoutInterval)
        } catch {
            let target = request.url?.absoluteString ?? "server"
            throw InputError(code: .unavailable, message: "cannot reach \(target): \(error.localizedDescription)")
        }
    }
}
