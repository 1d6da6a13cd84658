import Foundation
import Testing

@testable import SpeakKit
@testable import SpeakUpstream

/// `upstream_server.py` on a free port, for one test: it answers as the URL's first path component
/// says and logs every request it receives.
final class UpstreamFixture {
    struct Request {
        var path: String
        var authorization: String?
        var body: [String: Any]
        /// The server's monotonic clock.
        var time: Double
    }

    private let server: FixtureServer
    private let directory: URL
    var port: Int { server.port }

    /// A real reply from espeak-ng through LAME: what the fixture serves and the client must return.
    static let mp3: Data = {
        let synthesizer = try! EspeakSynthesizer.shared()
        var pcm = PCMBuffer(sampleRate: synthesizer.sampleRate)
        try! synthesizer.synthesize("Hello from upstream.", options: SpeechOptions(voice: VoiceCatalog.builtInDefault))
        {
            pcm.samples += $0
        }
        return try! MP3Encoder.encodeFile(pcm)
    }()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "upstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let mp3File: String = directory.appending(path: "reply.mp3").path
        try Self.mp3.write(to: URL(filePath: mp3File))
        let logFile: String = directory.appending(path: "requests.log").path
        server = try FixtureServer(script: "upstream_server.py", arguments: [mp3File, logFile])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func url(_ scenario: String) -> String { "http://127.0.0.1:\(port)/\(scenario)" }

    /// A file holding `UpstreamClientTests.key`, for `keyFile`.
    lazy var keyFile: String = FixtureServer.keyFile(in: directory, key: UpstreamClientTests.key)

    var requests: [Request] {
        let log = (try? String(contentsOf: directory.appending(path: "requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map { line in
            let object = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return Request(
                path: object["path"] as! String, authorization: object["authorization"] as? String,
                body: object["body"] as? [String: Any] ?? [:], time: object["time"] as! Double)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("Upstream client")
struct UpstreamClientTests {
    static let key = "sk-test-\(UUID().uuidString)"

    static func upstream(
        _ fixture: UpstreamFixture, _ scenario: String, api: Upstream.API = .openai, timeout: Double? = nil
    ) -> Upstream {
        Upstream(api: api, url: fixture.url(scenario), voice: "alloy", keyFile: fixture.keyFile, timeout: timeout)
    }

    static let quick = UpstreamClient(maxAttempts: 3, baseDelay: 0.01)

    @Test("OpenAI: POST /v1/audio/speech with the model, voice, speed and the key")
    func openAI() throws {
        let fixture = try UpstreamFixture()
        let data = try Self.quick.fetch("Sannu", speed: 1.25, from: Self.upstream(fixture, "ok"))
        #expect(data == UpstreamFixture.mp3)
        let requests = fixture.requests
        try #require(requests.count == 1)
        #expect(requests[0].path == "/ok/v1/audio/speech")
        #expect(requests[0].authorization == "Bearer \(Self.key)")
        let body = requests[0].body
        #expect(body.count == 5)
        #expect(body["model"] as? String == "tts-1")
        #expect(body["input"] as? String == "Sannu")
        #expect(body["voice"] as? String == "alloy")
        #expect(body["response_format"] as? String == "mp3")
        #expect(body["speed"] as? Double == 1.25)
    }

    @Test("speak: POST /api/speak with text and voice; the key from the first line of a file")
    func speakAPI() throws {
        let fixture = try UpstreamFixture()
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "key-\(UUID().uuidString)")
        try "  user-token-1 \nsecond line\n".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let upstream = Upstream(api: .speak, url: fixture.url("ok") + "/", voice: "ha", keyFile: keyFile.path)
        #expect(try Self.quick.fetch("Na gode", speed: 2, from: upstream) == UpstreamFixture.mp3)
        let requests = fixture.requests
        try #require(requests.count == 1)
        #expect(requests[0].path == "/ok/api/speak")
        #expect(requests[0].authorization == "Bearer user-token-1")
        #expect(requests[0].body.count == 2)
        #expect(requests[0].body["text"] as? String == "Na gode")
        #expect(requests[0].body["voice"] as? String == "ha")
    }

    @Test("the key: the environment first, then the file; none means no Authorization header")
    func keySources() throws {
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "key-\(UUID().uuidString)")
        try "from-file\n".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let unset = "SPEAK_TEST_UNSET_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        func key(_ environment: String?, _ file: String?) -> String? {
            UpstreamClient.key(
                for: Upstream(api: .openai, url: "http://x", voice: "v", keyEnvironment: environment, keyFile: file))
        }
        // Tests run in parallel with processes being spawned, so none may `setenv`: PATH is always set.
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(key("PATH", keyFile.path) == path.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(key(unset, keyFile.path) == "from-file")
        #expect(key(unset, "/nonexistent/key") == nil)
        #expect(key(nil, nil) == nil)

        let fixture = try UpstreamFixture()
        _ = try Self.quick.fetch("x", speed: nil, from: Upstream(api: .openai, url: fixture.url("ok"), voice: "v"))
        #expect(fixture.requests.map(\.authorization) == [nil])
        #expect(fixture.requests.first?.body["speed"] as? Double == 1)
    }

    @Test("503 is retried until it succeeds")
    func retriesServiceUnavailable() throws {
        let fixture = try UpstreamFixture()
        #expect(try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "fail503x2")) == UpstreamFixture.mp3)
        #expect(fixture.requests.count == 3)
    }

    @Test("503 on every attempt: a retryable error after maxAttempts requests")
    func givesUpAfterMaxAttempts() throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "fail503x9"))
        }
        #expect(error?.status == 503)
        #expect(error?.isRetryable == true)
        #expect(fixture.requests.count == 3)
    }

    @Test("429 waits as long as Retry-After says")
    func honoursRetryAfter() throws {
        let fixture = try UpstreamFixture()
        #expect(
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "ratelimit1")) == UpstreamFixture.mp3)
        let requests = fixture.requests
        try #require(requests.count == 2)
        let wait = requests[1].time - requests[0].time
        #expect(wait >= 1 && wait < 2, "waited \(wait) s")
    }

    @Test("429 asking for more than 10 s fails at once, retryable")
    func longRetryAfterFails() throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "ratelimit60"))
        }
        #expect(error?.status == 429)
        #expect(error?.isRetryable == true)
        #expect(fixture.requests.count == 1)
    }

    @Test("400 is not retried")
    func badRequestIsFinal() throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "status400"))
        }
        #expect(error?.status == 400)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("bad request from") == false, "the upstream's body is never passed on")
        #expect(fixture.requests.count == 1)
    }

    @Test("a hanging upstream times out on each attempt, at the timeout asked: a retryable error")
    func timesOut() throws {
        let fixture = try UpstreamFixture()
        let client = UpstreamClient(maxAttempts: 2, baseDelay: 0.01)
        // The upstream answers after 1 s: a client keeping only the socket's timeout (whole
        // seconds, at least 2) would get that answer; one keeping the 0.2 s asked gives up first.
        let error = #expect(throws: UpstreamError.self) {
            try client.fetch("x", speed: nil, from: Self.upstream(fixture, "hang1", timeout: 0.2))
        }
        #expect(error?.isRetryable == true)
        #expect(error?.status == nil)
        #expect(error?.message.contains("timed out after 0.2 s") == true, "\(String(describing: error))")
        // Both attempts reached the upstream and were waited on.
        #expect(fixture.requests.count == 2)
    }

    @Test("a reply that is not audio is rejected and not retried")
    func rejectsNonAudio() throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "html"))
        }
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("not audio") == true)
        #expect(fixture.requests.count == 1)
    }

    @Test("a redirect is not followed, so the key goes nowhere else")
    func refusesRedirects() throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try Self.quick.fetch("x", speed: nil, from: Self.upstream(fixture, "redirect"))
        }
        #expect(error?.status == 302)
        #expect(error?.isRetryable == false)
        #expect(fixture.requests.map(\.path) == ["/redirect/v1/audio/speech"])
    }

    @Test("nothing listening: a retryable connection error")
    func connectionRefused() throws {
        let upstream = Upstream(api: .openai, url: "http://127.0.0.1:1", voice: "v")
        let error = #expect(throws: UpstreamError.self) { try Self.quick.fetch("x", speed: nil, from: upstream) }
        #expect(error?.isRetryable == true)
        #expect(error?.status == nil)
    }

    @Test(
        "the key never appears in an error, even when the upstream echoes it",
        arguments: ["status400", "status401", "status500", "html"])
    func keyNeverInErrors(scenario: String) throws {
        let fixture = try UpstreamFixture()
        let error = #expect(throws: UpstreamError.self) {
            try UpstreamClient(maxAttempts: 1).fetch("x", speed: nil, from: Self.upstream(fixture, scenario))
        }
        let error2 = try #require(error)
        for text in ["\(error2)", String(reflecting: error2), error2.message, error2.localizedDescription] {
            #expect(!text.contains(Self.key), "\(text)")
            #expect(!text.contains("\n"))
        }
        #expect(
            fixture.requests.first?.authorization == "Bearer \(Self.key)", "the key was sent, so it could have leaked")
    }

    @Test("MP3 recognised by its first bytes")
    func mp3Signature() {
        #expect(UpstreamClient.looksLikeMP3(UpstreamFixture.mp3))
        #expect(UpstreamClient.looksLikeMP3(Data("ID3\u{4}".utf8)))
        #expect(!UpstreamClient.looksLikeMP3(Data("<html>".utf8)))
        #expect(!UpstreamClient.looksLikeMP3(Data()))
    }
}
