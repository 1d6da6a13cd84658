import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// `speak serve`, started for real on a free port and called over HTTP (``WireClient``) and with
/// the `openai` package.
@Suite("speak serve", .serialized)
final class ServerTests {
    let server: RunningServer
    let client: WireClient

    init() throws {
        server = try RunningServer()
        client = WireClient(port: server.port, token: server.token)
    }

    func duration(_ mp3: Data) throws -> Double { try PCMBuffer(audio: mp3).duration }

    @Test("SIGHUP reloads the tokens file")
    func reloadTokens() throws {
        let newToken = "another-token"
        #expect(client.call("GET", "/voices", authorization: "Bearer \(newToken)").status == 401)
        let line = try Speak.run(["serve", "--hash-token", newToken, "--name", "second"]).stdout
        try Data((try String(contentsOf: server.tokensFile, encoding: .utf8) + line).utf8).write(to: server.tokensFile)
        server.process.send(SIGHUP)
        var status = 0
        for _ in 0..<100 where status != 200 {
            usleep(20_000)
            status = client.call("GET", "/voices", authorization: "Bearer \(newToken)").status
        }
        #expect(status == 200)
    }

    @Test("POST /api/speak is the mobile client's contract: JSON in, audio/mpeg out")
    func apiSpeak() throws {
        let reply = client.call(
            "POST", "/api/speak", json: #"{"text": "Na gode! Mun karɓi saƙonku.", "voice": "nadia"}"#)
        #expect(reply.status == 200 && !reply.cut, "\(reply.text)")
        #expect(reply.header("content-type") == "audio/mpeg")
        let seconds = try duration(reply.body)
        #expect(seconds > 1.2 && seconds < 4, "\(seconds) s")
    }

    @Test("an uncached reply streams as one continuous MP3 while it is synthesised")
    func streaming() throws {
        let text = (1...40).map { "This is sentence number \($0) of a long reply." }.joined(separator: " ")
        let request = ServiceRequest(
            method: "POST", path: "/speak",
            headers: ["authorization": "Bearer \(server.token)", "content-type": "application/json"],
            body: Data(try jsonBody(["text": text]).utf8))
        var madeWhenBodyBegan: Bool?
        let reply = client.send(request) {
            // The cache entry stays a temp file until the reply's last bytes are made.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: server.cacheDirectory.path)) ?? []
            madeWhenBodyBegan = !names.contains { $0.hasPrefix(".tmp-") }
        }
        #expect(reply.status == 200 && !reply.cut, "\(reply.text.prefix(200))")
        #expect(reply.header("transfer-encoding") == "chunked")
        // The first bytes came while synthesis of ~2 minutes of speech was still going.
        #expect(madeWhenBodyBegan == false)
        // One stream: no ID3 or Info/Xing header anywhere, and it decodes as a whole.
        for marker in ["ID3", "Xing", "Info"] { #expect(reply.body.range(of: Data(marker.utf8)) == nil) }
        let seconds = try duration(reply.body)
        #expect(seconds > 60, "\(seconds) s")
    }

    @Test("connections are kept alive between requests")
    func keepAlive() throws {
        let answers = client.sendOnOneConnection(
            ["/voices", "/v1/models"].map {
                ServiceRequest(method: "GET", path: $0, headers: ["authorization": "Bearer \(server.token)"])
            })
        // The second was answered on the connection the first left open.
        #expect(answers.map(\.status) == [200, 200], "\(answers.map { $0.text.prefix(200) })")
    }

    @Test("HEAD answers wherever GET does, with the headers and no body; Allow names it")
    func head() throws {
        #expect(client.call("HEAD", "/health", authorization: nil).status == 200)
        let reply = client.call("HEAD", "/speak", query: ["text": "Head first."])
        #expect(reply.status == 200 && reply.header("content-type") == "audio/mpeg", "\(reply.headers)")
        // The connection closed after the headers: no body came, whatever Content-Length says.
        #expect(Int(reply.header("content-length") ?? "") ?? 0 > 1000 && reply.body.count < 1000, "\(reply.text)")
        let wrong = client.call("DELETE", "/speak")
        #expect(wrong.header("allow") == "POST, GET, HEAD", "\(wrong.headers)")
    }

    @Test("a body over the limit gets 413 without the server reading it whole")
    func bodyTooLarge() throws {
        let big = Data(repeating: 0x61, count: 8 << 20)
        let reply = client.call("POST", "/speak", body: big, headers: ["content-type": "application/json"])
        #expect(reply.status == 413)
        #expect(reply.errorMessage?.contains("larger than") == true)
    }

    @Test("the openai package works unchanged against /v1/audio/speech", arguments: ["mp3", "wav", "pcm"])
    func openAIClient(format: String) throws {
        let output = server.directory.appendingPathComponent("openai.\(format)")
        let script = """
            from openai import OpenAI
            client = OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            response = client.audio.speech.create(
                model="tts-1", voice="alloy", input="Hello from the OpenAI client.", response_format="\(format)",
                speed=1.25)
            response.write_to_file("\(output.path)")
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: output)
        let seconds: Double =
            switch format {
            case "pcm": Double(data.count) / 48000  // 24 kHz, 16-bit mono, as OpenAI's pcm
            default: try PCMBuffer(audio: data).duration
            }
        #expect(seconds > 1 && seconds < 3, "\(format): \(seconds) s")
    }

    @Test("the openai package sees a 400 in OpenAI's shape for an unsupported format")
    func openAIErrors() throws {
        let script = """
            import openai
            client = openai.OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            try:
                client.audio.speech.create(model="tts-1", voice="alloy", input="Hi", response_format="aiff")
            except openai.BadRequestError as error:
                print(error.status_code, error.body["message"], error.body["param"])
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(
            result.stdout.hasPrefix("400 response_format 'aiff' is not supported"), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("response_format\n"))
    }

    func jsonBody(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}

/// Servers configured for one scenario each.
@Suite("speak serve, configured", .serialized)
struct ServerScenarioTests {
    @Test("the cache stays within its bound, evicting the least recently used replies")
    func cacheEviction() throws {
        let server = try RunningServer(["--cache-bytes", "20000"])
        let client = WireClient(port: server.port, token: server.token)
        let texts = (1...12).map { "Reply number \($0) for the eviction test." }
        for text in texts {
            let reply = client.call("POST", "/speak", json: #"{"text": "\#(text)"}"#)
            #expect(reply.status == 200)
        }
        let files = try FileManager.default.contentsOfDirectory(
            at: server.cacheDirectory, includingPropertiesForKeys: [.fileSizeKey])
        let bytes = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        // The bound counts replies' bodies, not the header each entry file starts with.
        #expect(bytes - files.count * ReplyCache.headerBytes <= 20000)
        #expect(files.count >= 2 && files.count < texts.count)
        // The newest reply is still there; the oldest is not.
        let newest = client.call("POST", "/speak", json: #"{"text": "\#(texts.last!)"}"#)
        #expect(newest.header("x-speak-cache") == "hit")
        let oldest = client.call("POST", "/speak", json: #"{"text": "\#(texts.first!)"}"#)
        #expect(oldest.header("x-speak-cache") == "miss")
    }

    @Test("the cache survives a restart")
    func cacheSurvivesRestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = #"{"text": "Remember me after a restart."}"#
        let first = try RunningServer(directory: directory)
        #expect(
            WireClient(port: first.port, token: first.token).call("POST", "/speak", json: body).header("x-speak-cache")
                == "miss")
        #expect(first.stop().status == 0)
        let second = try RunningServer(directory: directory)
        #expect(
            WireClient(port: second.port, token: second.token).call("POST", "/speak", json: body).header(
                "x-speak-cache") == "hit")
    }

    @Test("a reply read from disk is read on the response threads, not libmicrohttpd's connection threads")
    func storedHitOffConnectionThreads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stored-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Megabytes of PCM: reading and checking them takes a while, which other requests on the
        // same connection thread (cache hits, /health) would wait out.
        let text = String(repeating: "Every file of the nightly backup was copied and checked twice. ", count: 20)
        let body = #"{"model": "tts-1", "voice": "default", "response_format": "pcm", "input": "\#(text)"}"#
        let first = try RunningServer(["--threads", "1"], directory: directory)
        let made = WireClient(port: first.port, token: first.token).call("POST", "/v1/audio/speech", json: body)
        #expect(made.header("x-speak-cache") == "miss")
        #expect(first.stop().status == 0)
        let entries = try FileManager.default.contentsOfDirectory(atPath: first.cacheDirectory.path)
        let entry = try #require(entries.first { $0.hasSuffix(".reply") })
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: first.cacheDirectory.appendingPathComponent(entry).path)[
                .size] as? Int)
        #expect(size > 1 << 20)

        let second = try RunningServer(["--threads", "1"], directory: directory)
        // What libmicrohttpd's threads (named MHD-…) have read, files and sockets alike.
        let tasks = "/proc/\(second.process.pid)/task"
        func connectionThreadsRead() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(0) { total, task in
                guard (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8))?.hasPrefix("MHD") == true,
                    let io = try? String(contentsOfFile: "\(tasks)/\(task)/io", encoding: .utf8),
                    let line = io.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") })
                else { return total }
                return total + (Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) ?? 0)
            }
        }
        let before = try connectionThreadsRead()
        let hit = WireClient(port: second.port, token: second.token).call("POST", "/v1/audio/speech", json: body)
        #expect(hit.header("x-speak-cache") == "hit" && hit.body.count == size - 48)
        let read = try connectionThreadsRead() - before
        #expect(read < size / 2, "the connection threads read \(read) bytes of a \(size)-byte entry")
    }

    @Test("response threads started many at once are all named speak-respond, not after libmicrohttpd's threads")
    func responseThreadNames() throws {
        let server = try RunningServer(["--threads", "1", "--rate-limit", "1000000"])
        let client = WireClient(port: server.port, token: server.token)
        for round in 0..<3 {
            let requests = (0..<40).map { index in
                BackgroundCall {
                    client.call("POST", "/api/speak", json: #"{"text":"Thread \#(round) \#(index) answers."}"#)
                }
            }
            for request in requests {
                let answer = request.answer()
                #expect(answer.status == 200, "\(answer.text.prefix(200))")
            }
        }
        let tasks = "/proc/\(server.process.pid)/task"
        let names = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap {
            try? String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8)
        }
        // --threads 1: one libmicrohttpd thread; the rest that answered are the response pool's.
        #expect(names.filter { $0.hasPrefix("MHD") }.count == 1, "\(names.sorted())")
        #expect(names.contains { $0.hasPrefix("speak-respond") })
    }

    @Test("SIGTERM lets a request in flight finish, and leaves nothing half-written in the cache")
    func gracefulShutdown() throws {
        let server = try RunningServer()
        let text = (1...60).map { "Sentence \($0) keeps the worker busy for a while." }.joined(separator: " ")
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["text": text]), as: UTF8.self)
        let client = WireClient(port: server.port, token: server.token)
        let request = BackgroundCall { client.call("POST", "/speak", json: body) }
        // Stopped while the reply is being made: once its cache entry is being written.
        try poll("the reply to be in flight", seconds: 10) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: server.cacheDirectory.path)) ?? []
            return names.contains { $0.hasPrefix(".tmp-") }
        }
        let stopped = server.stop()
        let answered = request.answer()
        #expect(stopped.status == 0)
        #expect(answered.status == 200 && !answered.cut, "\(answered.status), \(answered.body.count) bytes")
        #expect(try PCMBuffer(audio: answered.body).duration > 100)
        let names = try FileManager.default.contentsOfDirectory(atPath: server.cacheDirectory.path)
        #expect(names.allSatisfy { !$0.hasPrefix(".tmp-") }, "\(names)")
        // After shutdown nothing listens.
        #expect(WireClient(port: server.port).call("GET", "/health").status != 200)
    }

    @Test("one speak serve is another's upstream; when it stops, a local voice answers and says so")
    func upstreamAndFallback() throws {
        let upstream = try RunningServer()
        let voices = FileManager.default.temporaryDirectory.appendingPathComponent("voices-\(UUID())")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: voices) }
        let keyFile = voices.appendingPathComponent("upstream.key")
        try Data("\(upstream.token)\n".utf8).write(to: keyFile)
        let voice = """
            {"name": "relay", "language": "ha", "espeakVoice": "sw", "rate": 160, "pitch": 50,
             "description": "nadia, fetched from upstream",
             "upstream": {"api": "speak", "url": "\(upstream.url)", "voice": "nadia", "keyFile": "\(keyFile.path)",
                          "timeout": 5, "fallback": "default"}}
            """
        try Data(voice.utf8).write(to: voices.appendingPathComponent("relay.json"))
        let front = try RunningServer(["--voices-dir", voices.path])

        let frontClient = WireClient(port: front.port, token: front.token)
        let fetched = frontClient.call("POST", "/api/speak", json: #"{"text": "Na gode!", "voice": "relay"}"#)
        #expect(fetched.status == 200, "\(fetched.text)")
        #expect(fetched.header("x-speak-upstream") == upstream.url)
        #expect(fetched.header("x-speak-fallback") == nil)
        // The same words from the upstream directly: the relay passed them through.
        let direct = WireClient(port: upstream.port, token: upstream.token).call(
            "POST", "/api/speak", json: #"{"text": "Na gode!", "voice": "nadia"}"#)
        #expect(direct.body == fetched.body)
        // The command line speaks the relay voice from the upstream too (not with espeak-ng here),
        // so what `--cache` stores under the relay's key is the upstream's reply, byte for byte.
        let cacheHome = voices.appendingPathComponent("cache-home")
        let spoken = try Speak.run(
            ["--cache", "-a", "null", "--voices-dir", voices.path, "-v", "relay", "Na gode!"],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cacheHome.path]) { $1 })
        #expect(spoken.status == 0, "\(spoken.stderr)")
        let stored = try FileManager.default.contentsOfDirectory(
            at: cacheHome.appendingPathComponent("speak"), includingPropertiesForKeys: nil
        )
        .filter { !$0.lastPathComponent.hasPrefix(".") }
        #expect(try stored.map { try ReplyCache.storedReply(at: $0) } == [direct.body])
        // The key went upstream only: it is in no response header or body of the front server.
        #expect(!fetched.headers.contains { $0.1.contains(upstream.token) })

        #expect(upstream.stop().status == 0)
        let fallback = frontClient.call("POST", "/api/speak", json: #"{"text": "Sannu da zuwa.", "voice": "relay"}"#)
        #expect(fallback.status == 200)
        #expect(fallback.header("x-speak-fallback") == "default")
        #expect(try PCMBuffer(audio: fallback.body).duration > 0.5)
        let ready = frontClient.call("GET", "/ready")
        #expect(ready.status == 503)
        // Nor is the key in anything the front server logged.
        let log = front.stop()
        #expect(!log.stderr.contains(upstream.token) && !log.stdout.contains(upstream.token))
    }
}
