import Foundation
import SpeakCLI
import SpeakKit
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
        self.token = token ?? EnvironmentSettings.current.token
    }

    func play(_ text: String, options: Options) throws {
        var request = URLRequest(url: url, timeoutInterval: 600)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        var body: [String: JSONValue] = ["text": .string(text)]
        if let voice = options.voiceName { body["voice"] = .string(voice) }
        if let rate = options.rate { body["rate"] = JSONValue(rate) }
        if let pitch = options.pitch { body["pitch"] = JSONValue(pitch) }
        request.httpBody = JSONValue.object(body).data

        let (status, data) = try Self.send(request)
        var message = "HTTP \(status)"
        if case .object(let reply)? = try? JSONValue(parsing: data), case .object(let error)? = reply["error"],
            case .string(let text)? = error["message"]
        {
            message = text
        }
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
