import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// The faults an adversarial run found in `speak serve` (issue 11), each against a real server.
@Suite("speak serve under faults", .serialized)
final class ServerFaultTests {
    /// The test's config files and voices, removed after it (Swift Testing runs deinit then).
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("server-faults-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A JSON config file for one server.
    func config(_ json: String) throws -> URL {
        let file = scratch.appendingPathComponent("config-\(UUID()).json")
        try Data(json.utf8).write(to: file)
        return file
    }

    /// A voices directory with `relay`, an upstream voice fetching from `url`.
    func relayVoices(upstream url: String, timeout: Int) throws -> URL {
        let voices = scratch.appendingPathComponent("voices-\(UUID())")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        let voice = """
            {"name": "relay", "language": "en", "espeakVoice": "en-us", "rate": 175, "pitch": 50,
             "description": "fetched from an upstream",
             "upstream": {"api": "speak", "url": "\(url)", "voice": "default", "timeout": \(timeout)}}
            """
        try Data(voice.utf8).write(to: voices.appendingPathComponent("relay.json"))
        return voices
    }

    @Test("SIGTERM with a request still waiting past the grace period exits 0 and removes the uploads")
    func shutdownPastGrace() throws {
        // An upstream that takes the connection and never answers: the request stays suspended.
        let silent = try SilentListener()
        let voices = try relayVoices(upstream: "http://127.0.0.1:\(silent.port)", timeout: 120)
        // The server's own temporary directory, so its spool (a name mkdtemp chose) is the one
        // speak-uploads-* there.
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let server = try RunningServer(
            ["--voices-dir", voices.path, "--config", try config(#"{"shutdownGraceSeconds": 1}"#).path],
            environment: ["TMPDIR": temporary.path])
        let spools = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(spools.count == 1 && spools.allSatisfy { $0.hasPrefix("speak-uploads-") }, "\(spools)")
        let uploads = temporary.appendingPathComponent(try #require(spools.first))
        // Private: another local user can neither list nor plant files in it.
        let mode = try FileManager.default.attributesOfItem(atPath: uploads.path)[.posixPermissions] as? Int
        #expect(mode == 0o700, "mode \(String(mode ?? 0, radix: 8))")
        let client = WireClient(port: server.port, token: server.token)
        let request = BackgroundCall {
            client.call("POST", "/speak", json: #"{"text": "Are you there?", "voice": "relay"}"#)
        }
        #expect(silent.waitForConnection(seconds: 30), "the request reached the upstream")
        let stopped = server.stop()
        let answered = request.answer()
        #expect(stopped.signal == nil, "killed by signal \(stopped.signal ?? 0): \(stopped.stderr)")
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("suspended connections"))
        // 0: the connection closed before any reply.
        #expect([503, 0].contains(answered.status), "the client got \(answered.status): \(answered.text)")
        #expect(!FileManager.default.fileExists(atPath: uploads.path))
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "left in the server's temporary directory: \(left)")
    }

    @Test("idle connections cannot lock /health out; past the limit a connection gets 503 at once")
    func connectionLimit() throws {
        let server = try RunningServer(["--config", try config(#"{"idleTimeoutSeconds": 3}"#).path])
        var idle = try (0..<1020).map { _ in try RawConnection(port: server.port) }
        let health = WireClient(port: server.port).call("GET", "/health")
        #expect(health.status == 200)
        // The idle ones are closed after the idle timeout.
        #expect(idle.prefix(10).allSatisfy { $0.waitForClose(seconds: 10) }, "idle connections closed")
        idle.removeAll()

        let limited = try RunningServer(["--config", try config(#"{"connectionLimit": 20}"#).path])
        // Connections kept open, each answered once; the next past the limit gets a 503 (but for
        // /health: ServerPatienceTests). (The start-up health checks' connections may still be
        // counted for a moment, hence 18...20.)
        var held: [RawConnection] = []
        var refused = ""
        while held.count < 25 {
            let connection = try RawConnection(port: limited.port)
            try connection.send("GET /nosuch HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = connection.receive(seconds: 5)
            guard reply.hasPrefix("HTTP/1.1 404") else {
                refused = reply
                break
            }
            held.append(connection)
        }
        #expect((18...20).contains(held.count), "\(held.count) connections held before a refusal")
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
        #expect(refused.contains("too_many_connections"))
        // Whole: as long as it says (a longer claim left clients waiting for bytes that never came).
        let (head, body) = try #require(Self.split(refused))
        #expect(head.contains("\r\ncontent-length: \(body.utf8.count)\r\n"), "\(refused)")
    }

    /// A response's head (lowercased) and body.
    static func split(_ response: String) -> (head: String, body: String)? {
        guard let end = response.range(of: "\r\n\r\n") else { return nil }
        return (response[..<end.upperBound].lowercased(), String(response[end.upperBound...]))
    }

    /// A server with its own temporary directory, and the upload spool it made there.
    func serverWithUploads() throws -> (RunningServer, uploads: URL) {
        let temporary = scratch.appendingPathComponent("tmp-\(UUID())")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let server = try RunningServer(environment: ["TMPDIR": temporary.path])
        let spool = try #require(try FileManager.default.contentsOfDirectory(atPath: temporary.path).first)
        return (server, temporary.appendingPathComponent(spool))
    }

    @Test("an upload's files are removed once it is answered (200 or 4xx), not hundreds of requests later")
    func uploadsRemovedWhenAnswered() throws {
        let (server, uploads) = try serverWithUploads()
        let garbage = scratch.appendingPathComponent("not-audio.wav")
        try Data("not audio at all".utf8).write(to: garbage)
        let audio = TranscriptionServerTests.samples.appendingPathComponent("yes.m4a")
        for (file, answered) in [(audio, 200...200), (garbage, 400...499)] {
            let part = MultipartBody.File(
                filename: file.lastPathComponent, contentType: "application/octet-stream",
                data: try Data(contentsOf: file))
            let reply = WireClient(port: server.port, token: server.token).upload(
                "/v1/audio/transcriptions", MultipartBody(fields: [("model", "whisper-1")], files: [part]))
            #expect(answered.contains(reply.status), "\(file.lastPathComponent): \(reply.status) \(reply.text)")
            try poll("\(file.lastPathComponent)'s upload to be removed", seconds: 10) {
                try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty
            }
        }
    }

    @Test("an upload without a valid token is answered 401 from its head, before a 413: nothing is spooled")
    func uploadRefusedFromItsHead() throws {
        let (server, uploads) = try serverWithUploads()
        // Under the upload limit (a server that took the body in first would wait for it, not
        // answer), and over it (401 is the answer that helps, not 413).
        for (path, token, length) in [
            ("/v1/audio/transcriptions", "wrong", 20_000_000), ("/api/transcribe", nil, 20_000_000),
            ("/v1/audio/transcriptions", "wrong", 30_000_000),
        ] {
            let connection = try RawConnection(port: server.port)
            // A part begun, and then nothing more.
            try connection.send(
                "POST \(path) HTTP/1.1\r\nHost: x\r\n" + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "")
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(length)\r\n\r\n"
                    + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n"
                    + String(repeating: "a", count: 1000))
            let reply = connection.receive(seconds: 5)
            #expect(reply.hasPrefix("HTTP/1.1 401"), "\(path), \(length) bytes: \(reply)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty, "\(path)")
        }
    }

    @Test(
        "framing RFC 9112 forbids is refused at once; an absolute-form target is routed",
        arguments: [
            ("POST /speak HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{\"a\"}", "400"),
            (
                "POST /speak HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                "501"
            ),
            (
                "POST /speak HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 4\r\n\r\n{\"a\"",
                "400"
            ),
            ("POST /speak HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n{}", "400"),
            ("GET http://localhost/health HTTP/1.1\r\nHost: localhost\r\n\r\n", "200"),
            // The connection's buffer holds an 8 KiB header line; far larger heads are refused.
            ("GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "a", count: 8192))\r\n\r\n", "200"),
            ("GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "a", count: 40000))\r\n\r\n", "431"),
        ])
    func framing(request: String, status: String) throws {
        let server = try RunningServer()
        let connection = try RawConnection(port: server.port)
        try connection.send(request.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
        // 10 s, under the server's 15 s idle timeout: an answer at all is the parser's, not the timeout's.
        let reply = connection.receive(seconds: 10)
        #expect(reply.hasPrefix("HTTP/1.1 \(status)"), "\(reply)")
    }

    @Test("upload bodies that are not multipart go to disk as they arrive, not into memory")
    func uploadsSpooled() throws {
        let server = try RunningServer()
        // 20 MB sent chunked, 64 KiB a chunk, as a client streaming a recording would.
        let chunk = Data("10000\r\n".utf8) + Data(repeating: 0x41, count: 0x10000) + Data("\r\n".utf8)
        let body =
            (0..<320).reduce(into: Data(capacity: 321 * chunk.count)) { body, _ in body += chunk }
            + Data("0\r\n\r\n".utf8)
        let client = WireClient(port: server.port, token: server.token)
        let before = try Self.peakMemory(of: server.process.pid)
        let uploads = (0..<4).map { _ in
            BackgroundCall {
                client.call(
                    "POST", "/api/transcribe", body: body,
                    headers: ["transfer-encoding": "chunked", "content-type": "application/octet-stream"])
            }
        }
        for upload in uploads {
            let answer = upload.answer()
            #expect(answer.status == 400, "\(answer.text)")
        }
        let grown = try Self.peakMemory(of: server.process.pid) - before
        #expect(grown < 30 << 20, "peak RSS grew \(grown >> 20) MB for 4 × 20 MB uploads")
    }

    @Test("a worker killed while idle: the next replies are whole, and no zombie is left")
    func workerKilledWhileIdle() throws {
        let server = try RunningServer()
        let workers = Self.children(of: server.process.pid)
        #expect(workers.count == 2)
        for pid in workers { kill(pid, SIGKILL) }
        let client = WireClient(port: server.port, token: server.token)
        for number in 1...4 {
            let reply = client.call("POST", "/speak", json: #"{"text": "Reply \#(number) after the kill."}"#)
            #expect(reply.status == 200 && !reply.cut)
            #expect(try PCMBuffer(audio: reply.body).duration > 0.5, "reply \(number): \(reply.body.count) bytes")
        }
        let zombies = Self.children(of: server.process.pid).filter { Self.state(of: $0) == "Z" }
        #expect(zombies.isEmpty, "zombies: \(zombies)")
        #expect(Set(Self.children(of: server.process.pid)).isDisjoint(with: workers))
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").dropFirst(1).first == Substring(String(pid))
        }
    }

    /// A process's state letter (R, S, Z…).
    static func state(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    @Test("a corrupt cache entry is never served: it is deleted and the reply made again", arguments: [0, 1, 2])
    func corruptEntry(damage: Int) throws {
        let server = try RunningServer()
        let client = WireClient(port: server.port, token: server.token)
        let query = ["text": "Check the cache entry", "voice": "default"]
        let first = client.call("GET", "/speak", query: query)
        #expect(first.header("x-speak-cache") == "miss")
        let entries = try FileManager.default.contentsOfDirectory(
            at: server.cacheDirectory, includingPropertiesForKeys: nil
        )
        .filter { $0.pathExtension == "reply" }
        let entry = try #require(entries.first)
        let stored = try Data(contentsOf: entry)
        let damaged: Data =
            switch damage {
            case 0: stored.prefix(stored.count / 2)
            case 1: Data()
            default: Data((0..<stored.count).map { _ in UInt8.random(in: 0...255) })
            }
        try damaged.write(to: entry)
        let second = client.call("GET", "/speak", query: query)
        #expect(second.status == 200)
        #expect(second.header("x-speak-cache") == "miss", "a damaged entry was served")
        #expect(try PCMBuffer(audio: second.body).duration > 1)
        let third = client.call("GET", "/speak", query: query)
        #expect(third.header("x-speak-cache") == "hit")
        #expect(third.body == second.body)
    }

    /// Whether this process may mount a tmpfs (root in a container that allows it).
    static let canMount: Bool = {
        let point = FileManager.default.temporaryDirectory.appendingPathComponent("mount-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: point) }
        guard (try? Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point.path]))?.status == 0
        else { return false }
        _ = try? Subprocess.run("/bin/umount", [point.path])
        return true
    }()

    /// A tmpfs of `size` mounted for the length of `body`, read-only if asked.
    static func withTmpfs(size: String, readOnly: Bool = false, _ body: (URL) throws -> Void) throws {
        let point = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfs-\(UUID())")
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        let options = "size=\(size)" + (readOnly ? ",ro" : "")
        let mounted = try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", point.path])
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer {
            _ = try? Subprocess.run("/bin/umount", ["-l", point.path])
            try? FileManager.default.removeItem(at: point)
        }
        try body(point)
    }

    static let longText = (1...40).map { "This is sentence number \($0) of a long reply." }.joined(separator: " ")

    /// Replies whole whatever the cache does, once its fault is logged, and /ready names it.
    static func expectWholeReplies(from server: RunningServer, reason: String) throws {
        let client = WireClient(port: server.port, token: server.token)
        for number in 1...3 {
            let text = "Reply \(number). " + longText
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["text": text]), as: UTF8.self)
            let reply = client.call("POST", "/speak", json: body)
            #expect(reply.status == 200 && !reply.cut)
            let seconds = try PCMBuffer(audio: reply.body).duration
            #expect(seconds > 60, "reply \(number) cut off at \(reply.body.count) bytes, \(seconds) s")
        }
        let ready = client.call("GET", "/ready")
        #expect(ready.status == 503)
        let cache = ready.json?["checks"]?.object?["cache"]?.string
        #expect(cache?.contains(reason) == true, "\(ready.text)")
        let log = server.stop().stderr
        #expect(log.components(separatedBy: "reply cache not storing").count == 2, "logged once: \(log)")
    }

    @Test(
        "an unwritable cache directory: replies are whole, the fault is logged once, /ready says 503",
        .enabled(if: canMount))
    func unwritableCache() throws {
        try Self.withTmpfs(size: "1m", readOnly: true) { directory in
            let server = try RunningServer(["--cache-dir", directory.path])
            try Self.expectWholeReplies(from: server, reason: "Read-only file system")
        }
    }

    @Test("a full cache disk: replies are whole, the fault is logged once, /ready says 503", .enabled(if: canMount))
    func fullCacheDisk() throws {
        try Self.withTmpfs(size: "64k") { directory in
            let server = try RunningServer(["--cache-dir", directory.path])
            try Self.expectWholeReplies(from: server, reason: "No space left")
        }
    }

    @Test(
        "a cache that stores again after a fault is ready again, and a new fault is logged again",
        .enabled(if: canMount))
    func cacheRecovers() throws {
        try Self.withTmpfs(size: "64k") { directory in
            let server = try RunningServer(["--cache-dir", directory.path])
            let long = String(
                decoding: try JSONSerialization.data(withJSONObject: ["text": Self.longText]), as: UTF8.self)
            let client = WireClient(port: server.port, token: server.token)
            #expect(client.call("POST", "/speak", json: long).status == 200)
            #expect(client.call("GET", "/ready").status == 503, "too big for the disk")
            let short = client.call("GET", "/speak", query: ["text": "Short."])
            #expect(short.status == 200 && short.header("x-speak-cache") == "miss")
            let ready = client.call("GET", "/ready")
            #expect(ready.status == 200, "stored again: \(ready.text)")
            #expect(client.call("GET", "/speak", query: ["text": "Short."]).header("x-speak-cache") == "hit")
            #expect(client.call("POST", "/speak", json: long).status == 200)
            #expect(client.call("GET", "/ready").status == 503)
            let log = server.stop().stderr
            #expect(log.components(separatedBy: "reply cache not storing").count == 3, "once per fault: \(log)")
        }
    }

    /// VmHWM: the most the process has held in memory, in bytes.
    static func peakMemory(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ")[1])
        else { throw TestFailure("no VmHWM for \(pid)") }
        return kilobytes << 10
    }
}

/// A listening socket that never accepts: connections wait in its backlog, unanswered.
final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw TestFailure("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// Whether a connection is waiting within `seconds`.
    func waitForConnection(seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) == 1
    }
}

/// A plain TCP connection to the server, for requests no HTTP client sends.
final class RawConnection {
    let descriptor: Int32

    /// `receiveBuffer` (bytes) is set before connecting, so the window the server sees is that small.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.descriptor = descriptor
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("cannot connect to \(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    func send(_ data: Data) throws {
        let sent = data.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == data.count else { throw TestFailure("send failed") }
    }

    /// What arrives until the server closes the connection, a complete response, or `seconds` pass.
    func receive(seconds: Double) -> String {
        var received = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) == 1 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            if Self.isComplete(received) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Headers and as much body as Content-Length says.
    private static func isComplete(_ data: Data) -> Bool {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return data.count - end.upperBound >= length
    }

    /// Whether the server closes the connection within `seconds`.
    func waitForClose(seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(seconds * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
    }
}
