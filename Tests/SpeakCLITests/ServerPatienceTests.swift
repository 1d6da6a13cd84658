import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// What users meet without attacking anything (issue 31): a listener that pauses, a body past its
/// limit, every connection slot taken, a worker that dies mid-reply. Each against a real server,
/// with its timeouts made short so the tests are quick.
@Suite("speak serve stays patient and brief", .serialized)
final class ServerPatienceTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("server-patience-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    func server(config json: String) throws -> RunningServer {
        let file = scratch.appendingPathComponent("config-\(UUID()).json")
        try Data(json.utf8).write(to: file)
        return try RunningServer(["--config", file.path])
    }

    /// About four minutes of speech: a WAV reply of some 10 MB.
    static let longText = String(
        repeating: "A listener may pause a long reply and read on, and still hear all of it. ", count: 54)

    /// Asks for `longText` as a WAV over OpenAI's speech route, on a connection with a small
    /// receive buffer, so the server soon waits for the reader.
    static func requestLongWAV(from server: RunningServer, receiveBuffer: Int32? = 65536) throws -> SlowReader {
        let reader = try SlowReader(port: server.port, receiveBuffer: receiveBuffer)
        let body = try JSONSerialization.data(withJSONObject: [
            "model": "tts-1", "voice": "default", "input": longText, "response_format": "wav",
        ])
        try reader.send(
            Data(
                ("POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body)
        return reader
    }

    @Test("a reader that pauses twice the idle timeout mid-reply, then reads on, gets the whole WAV")
    func pausingReader() throws {
        let server = try server(config: #"{"idleTimeoutSeconds": 1}"#)
        let reader = try Self.requestLongWAV(from: server)
        var received = reader.read(atLeast: 256 << 10, seconds: 30)
        #expect(String(decoding: received.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        // The pause under test: the player has buffered ahead.
        Thread.sleep(forTimeInterval: 2)
        received += reader.readToEnd(seconds: 60)
        #expect(received.count > 5 << 20, "\(received.count) bytes")
        #expect(received.suffix(7) == Data("\r\n0\r\n\r\n".utf8), "the reply ends with its last chunk")
    }

    @Test("a reader that never stops but reads slower than the server writes gets the whole WAV")
    func steadySlowReader() throws {
        // The send timeout counts from the server's last write. A socket left to grow its send
        // buffer (to 4 MB here) held so much that a reader at 512 KB/s took longer than the timeout
        // to drain it, and was cut off while reading all the time.
        let server = try server(config: #"{"idleTimeoutSeconds": 1, "sendTimeoutSeconds": 2}"#)
        let reader = try Self.requestLongWAV(from: server, receiveBuffer: nil)
        var received = Data()
        // A player taking 512 KB/s (six times real time), 16 KiB at a time: the pacing is the test.
        while received.count < 5 << 20, !reader.closedByServer {
            received += reader.read(atLeast: 1, seconds: 30, chunk: 16 << 10)
            Thread.sleep(forTimeInterval: 1.0 / 32)
        }
        received += reader.readToEnd(seconds: 60)
        #expect(received.count > 8 << 20, "\(received.count) bytes")
        #expect(received.suffix(7) == Data("\r\n0\r\n\r\n".utf8), "the reply ends with its last chunk")
        #expect(!server.stop().stderr.contains("reply abandoned"))
    }

    @Test("a reader that stops for longer than the send timeout: the reply is abandoned, and logged once")
    func abandonedReply() throws {
        let server = try server(config: #"{"idleTimeoutSeconds": 1, "sendTimeoutSeconds": 2}"#)
        let reader = try Self.requestLongWAV(from: server)
        var received = reader.read(atLeast: 256 << 10, seconds: 30)
        // Not reading until the server says it let the reply go: its timer runs only while it has
        // bytes it cannot send, so how long that takes depends on the machine.
        try poll("the server to abandon the reply", seconds: 60) {
            server.process.stderrSoFar.contains("reply abandoned")
        }
        received += reader.readToEnd(seconds: 30)
        #expect(received.suffix(7) != Data("\r\n0\r\n\r\n".utf8), "the reply was cut")
        let log = server.stop().stderr
        let lines = log.split(separator: "\n").filter { $0.contains("reply abandoned") }
        #expect(lines.count == 1, "\(log)")
        #expect(lines.first?.contains("POST /v1/audio/speech") == true, "\(lines)")
        #expect(lines.first?.contains(" bytes") == true, "\(lines)")
    }

    @Test("a chunked body past its limit is answered 413 and the connection closed, not read to its end")
    func bodyPastLimit() throws {
        let server = try server(config: #"{"maximumBodyBytes": 65536}"#)
        let connection = try SlowReader(port: server.port, receiveBuffer: nil)
        try connection.send(
            Data(
                ("POST /speak HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").utf8))
        // Chunks until the server answers or stops reading; before, it read 64 MB to answer.
        let chunk = Data("10000\r\n".utf8) + Data(repeating: 0x20, count: 0x10000) + Data("\r\n".utf8)
        let sent = connection.sendUntilAnswered(chunk, upTo: 64 << 20)
        let reply = String(decoding: connection.readToEnd(seconds: 10), as: UTF8.self)
        #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply.prefix(200))")
        #expect(reply.contains("request_too_large"))
        #expect(sent < 16 << 20, "\(sent >> 20) MB sent before the answer")
        #expect(connection.closedByServer, "the connection is closed")
    }

    @Test("/health answers while every connection slot is held; anything else past the limit gets 503")
    func healthPastLimit() throws {
        let server = try server(config: #"{"connectionLimit": 8}"#)
        // Kept-alive connections, each answered once, until one is refused: all slots are held.
        var held: [RawConnection] = []
        var refused = ""
        while held.count < 12 {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /nosuch HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = connection.receive(seconds: 5)
            guard reply.hasPrefix("HTTP/1.1 404") else {
                refused = reply
                break
            }
            held.append(connection)
        }
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
        #expect(held.count <= 8)
        for method in ["GET", "HEAD"] {
            let health = try RawConnection(port: server.port)
            try health.send("\(method) /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = health.receive(seconds: 5)
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(method): \(reply)")
            #expect(reply.contains(#""status":"ok""#) == (method == "GET"), "\(reply)")
        }
        let other = try RawConnection(port: server.port)
        try other.send("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(other.receive(seconds: 5).hasPrefix("HTTP/1.1 503"))
        held.removeAll()
    }

    @Test("a worker killed in the middle of a whole reply: the request is made again, and the client gets all of it")
    func workerKilledMidReply() throws {
        let server = try RunningServer()
        let workers = ServerFaultTests.children(of: server.process.pid)
        #expect(workers.count == 2)
        let before = Dictionary(uniqueKeysWithValues: workers.map { ($0, Self.cpuTicks(of: $0)) })
        let client = WireClient(port: server.port, token: server.token)
        // GET /speak is answered whole: no header is sent until the reply is made.
        let request = BackgroundCall { client.call("GET", "/speak", query: ["text": Self.longText]) }
        var killed: pid_t?
        try poll("a worker to start on the reply", seconds: 30) {
            killed = workers.first { Self.cpuTicks(of: $0) > before[$0] ?? 0 }
            return killed != nil
        }
        kill(try #require(killed), SIGKILL)
        let answer = request.answer()
        #expect(answer.status == 200 && !answer.cut, "\(answer.status), \(answer.body.count) bytes")
        let audio = try PCMBuffer(audio: answer.body)
        #expect(audio.duration > 150, "\(audio.duration) s of audio")
    }

    /// The CPU time `pid` has used, in clock ticks.
    static func cpuTicks(of pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // utime and stime, fields 14 and 15 of stat(5); the first here is field 3.
        return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    }
}

/// A client connection that reads only when told to, with a small receive buffer so a server
/// writing a long reply soon waits for it.
final class SlowReader {
    private let connection: RawConnection
    private var descriptor: Int32 { connection.descriptor }
    /// Whether reading ended at the server's close (not a deadline).
    private(set) var closedByServer = false

    init(port: Int, receiveBuffer: Int32? = 65536) throws {
        connection = try RawConnection(port: port, receiveBuffer: receiveBuffer)
    }

    func send(_ data: Data) throws { try connection.send(data) }

    /// Sends `chunk` again and again, without blocking, until the server answers, stops the
    /// connection, or `limit` bytes are sent; then the last chunk. Returns the bytes sent.
    func sendUntilAnswered(_ chunk: Data, upTo limit: Int) -> Int {
        var sent = 0
        var offset = 0
        while sent < limit {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN | POLLOUT), revents: 0)
            guard Glibc.poll(&entry, 1, 10_000) == 1, entry.revents & Int16(POLLIN | POLLERR | POLLHUP) == 0 else {
                return sent
            }
            let count = chunk.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 && errno == EAGAIN { continue }
            guard count > 0 else { return sent }
            sent += count
            offset = (offset + count) % chunk.count
        }
        if offset == 0 { try? send(Data("0\r\n\r\n".utf8)) }
        return sent
    }

    /// Reads until at least `count` bytes have arrived, the server closes, or `seconds` pass; at
    /// most `chunk` bytes a call to `recv`.
    func read(atLeast count: Int, seconds: Double, chunk: Int = 65536) -> Data {
        var received = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: chunk)
        while received.count < count {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = Int32(deadline.timeIntervalSinceNow * 1000)
            guard wait > 0, Glibc.poll(&entry, 1, wait) == 1 else { break }
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got <= 0 {
                closedByServer = true
                break
            }
            received.append(contentsOf: buffer[0..<got])
        }
        return received
    }

    /// Reads until the server closes or the reply's last chunk arrives, or `seconds` pass.
    func readToEnd(seconds: Double) -> Data {
        var received = Data()
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !closedByServer, received.suffix(7) != Data("\r\n0\r\n\r\n".utf8) {
            received += read(atLeast: 1, seconds: deadline.timeIntervalSinceNow)
        }
        return received
    }
}
