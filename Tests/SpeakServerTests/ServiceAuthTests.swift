import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// Tokens and rate limits as the service applies them, in process and on the wire.
@Suite("SpeechService auth")
struct ServiceAuthTests {
    static let openPaths = ["/", "/health"]

    @Test(
        "without a valid bearer token every route but / and /health is 401 in OpenAI's shape, with WWW-Authenticate",
        arguments: Transport.allCases,
        [nil, "", "Bearer", "Bearer wrong", "Basic abc", "in-process-token", "Bearer in-process-token x"])
    func unauthorized(transport: Transport, authorization: String?) throws {
        let harness = try transport.harness()
        for route in SpeechService.routes {
            let answer = harness.call(
                route.method, route.path, json: route.method == "POST" ? "{}" : nil, authorization: authorization)
            if Self.openPaths.contains(route.path) {
                #expect(answer.status == 200, "\(route.path)")
                continue
            }
            #expect(answer.status == 401, "\(route.method) \(route.path): \(answer.status)")
            #expect(answer.header("WWW-Authenticate") == "Bearer")
            #expect(
                answer.errorField("type") == "authentication_error" && answer.errorField("code") == "invalid_api_key")
            #expect(try #require(answer.error).keys.sorted() == ["code", "message", "param", "type"])
        }
    }

    @Test(
        "the token admits every route; a token added to the file admits once the store reloads",
        arguments: Transport.allCases)
    func tokenStore(transport: Transport) throws {
        let harness = try transport.harness()
        #expect(harness.call("GET", "/voices").status == 200)
        let tokens = harness.directory.appendingPathComponent("tokens")
        let added = TokenStore.hashLine(for: "second-token", name: "second")
        #expect(harness.call("GET", "/voices", authorization: "Bearer second-token").status == 401)
        try Data((try String(contentsOf: tokens, encoding: .utf8) + added + "\n").utf8).write(to: tokens)
        try harness.service.tokens?.reload()
        #expect(harness.call("GET", "/voices", authorization: "Bearer second-token").status == 200)
        #expect(harness.call("GET", "/voices").status == 200)
    }

    @Test(
        "the local socket needs no token; without a tokens file every client is admitted",
        arguments: Transport.allCases)
    func noTokenNeeded(transport: Transport) throws {
        let harness = try transport.harness()
        switch transport {
        case .inProcess:
            var request = HTTPRequest(method: "GET", path: "/voices")
            request.viaLocalSocket = true
            #expect(harness.service.respond(to: request).status == 200)
        case .wire:
            // The service on a local socket of its own, as `speak serve` listens for the user's commands.
            let path = harness.directory.appendingPathComponent("run/serve.sock").path
            let service = harness.service
            let local = try HTTPServer(
                socketPath: path, threads: 1, bodyPolicy: service.bodyPolicy, screen: service.screen,
                handler: service.respond)
            defer { local.shutdown(timeout: 1) }
            #expect(WireClient(.unix(path: path)).call("GET", "/voices", authorization: nil).status == 200)
        }
        let open = try transport.harness(tokens: false)
        #expect(open.call("GET", "/voices", authorization: nil).status == 200)
    }

    /// In process only: the screen itself, asked with a request's head as the server asks it.
    @Test("an upload without a valid token is refused from its head (screen); other routes are not screened")
    func screen() throws {
        let harness = try InProcessService()
        for path in ["/api/transcribe", "/v1/audio/transcriptions", "/v1/audio/translations"] {
            let refused = harness.service.screen(HTTPRequest(method: "POST", path: path))
            #expect(refused?.status == 401, "\(path)")
            let admitted = HTTPRequest(
                method: "POST", path: path, headers: ["authorization": "Bearer \(InProcessService.token)"])
            #expect(harness.service.screen(admitted) == nil, "\(path)")
        }
        #expect(harness.service.screen(HTTPRequest(method: "POST", path: "/speak")) == nil)
        #expect(harness.service.screen(HTTPRequest(method: "GET", path: "/health")) == nil)
    }

    static func limited(_ transport: Transport, tokens: Bool = true) throws -> any ServiceHarness {
        var configuration = ServerConfiguration()
        (configuration.rateLimitPerMinute, configuration.rateLimitBurst) = (1, 3)
        return try transport.harness(configuration: configuration, tokens: tokens)
    }

    @Test("past its burst a token gets 429 with Retry-After, in OpenAI's shape", arguments: Transport.allCases)
    func rateLimit(transport: Transport) throws {
        let harness = try Self.limited(transport)
        #expect((0..<3).map { _ in harness.call("GET", "/voices").status } == [200, 200, 200])
        let limited = harness.call("GET", "/voices")
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(limited.errorField("type") == "rate_limit_error" && limited.errorField("code") == "rate_limit_exceeded")
        #expect(harness.call("GET", "/health").status == 200, "open routes are never limited")
    }

    /// On the wire the client's socket is bound to each address (all of 127/8 is this machine).
    @Test("without a tokens file each address has its own rate limit", arguments: Transport.allCases)
    func anonymousRateLimit(transport: Transport) throws {
        let harness = try Self.limited(transport, tokens: false)
        func statuses(_ address: String, _ count: Int) -> [Int] {
            (0..<count).map { _ in harness.call("GET", "/voices", authorization: nil, address: address).status }
        }
        #expect(statuses("127.0.0.2", 4) == [200, 200, 200, 429])
        #expect(statuses("127.0.0.3", 3) == [200, 200, 200])
        #expect(statuses("127.0.0.2", 1) == [429])
    }

    @Test(
        "GET /token is 204 or 401 and never charged; cache hits are free, new replies are charged",
        arguments: Transport.allCases)
    func freeRequests(transport: Transport) throws {
        let harness = try Self.limited(transport)
        #expect((0..<6).map { _ in harness.call("GET", "/token").status } == Array(repeating: 204, count: 6))
        #expect(harness.call("GET", "/token", authorization: "Bearer wrong").status == 401)
        let cached = ["text": "Free when cached.", "voice": "scripted"]
        #expect(harness.call("GET", "/speak", query: cached).header("X-Speak-Cache") == "miss")
        for _ in 0..<10 {
            let hit = harness.call("GET", "/speak", query: cached)
            #expect(hit.status == 200 && hit.header("X-Speak-Cache") == "hit")
        }
        #expect(harness.call("GET", "/speak", query: ["text": "Second.", "voice": "scripted"]).status == 200)
        #expect(harness.call("GET", "/speak", query: ["text": "Third.", "voice": "scripted"]).status == 200)
        #expect(harness.call("GET", "/speak", query: ["text": "Fourth.", "voice": "scripted"]).status == 429)
        #expect(harness.call("GET", "/speak", query: cached).status == 200, "a hit is still served")
    }
}
