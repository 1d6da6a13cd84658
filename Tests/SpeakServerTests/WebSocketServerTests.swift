import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// WebSockets through libmicrohttpd's upgrade, on a real socket: an echo session behind `/echo`.
@Suite("WebSocket sessions on HTTPServer")
struct WebSocketServerTests {
    /// A server whose `/echo` is a WebSocket answering each text message with itself, and whose
    /// other paths answer plain text.
    static func server(_ limits: HTTPServer.Limits = .init()) throws -> HTTPServer {
        try HTTPServer(
            host: "127.0.0.1", port: 0, threads: 2, limits: limits, bodyPolicy: { _, _ in .init(maximumBytes: 1024) },
            handler: echo)
    }

    private static func echo(_ request: HTTPRequest) -> HTTPResponse {
        guard request.path == "/echo" else { return .text("plain") }
        do {
            return try WebSocket.upgrade(request) { connection in
                while case .text(let text)? = connection.receive() {
                    guard (try? connection.send(text: text)) != nil else { return }
                }
            }
        } catch {
            return error.response
        }
    }

    @Test("text is echoed in unmasked frames, a ping gets its pong, and a close is answered before the hang-up")
    func echo() throws {
        let server = try Self.server()
        defer { server.shutdown(timeout: 1) }
        let client = try WebSocketClient(port: server.port, path: "/echo")
        #expect(client.status == 101, "\(client.head)")
        #expect(client.head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "\(client.head)")
        client.send(text: "hello")
        let echoed = try #require(client.frame())
        #expect(echoed == .init(opcode: 1, payload: Array("hello".utf8)))
        client.send(bytes: clientFrame(9, [4, 2]))
        #expect(client.frame() == .init(opcode: 10, payload: [4, 2]))
        client.send(bytes: clientFrame(8, [0x03, 0xE8]))
        #expect(client.frame()?.closeCode == 1000)
        #expect(client.frame() == nil, "the server closes the TCP connection after the close handshake")
    }

    @Test("a frame sent with the handshake, before the 101 arrived, is read")
    func frameWithHandshake() throws {
        let server = try Self.server()
        defer { server.shutdown(timeout: 1) }
        let client = try WebSocketClient(port: server.port, path: "/echo", early: clientFrame(1, Array("early".utf8)))
        #expect(client.status == 101)
        #expect(client.text() == "early")
    }

    @Test(
        "a bad frame closes the connection with its code, then hangs up",
        arguments: [
            (clientFrame(1, Array("hi".utf8), masked: false), 1002), (clientFrame(1, [0xFF, 0xFE]), 1007),
            (Array(clientFrame(2, [UInt8](repeating: 0, count: 2 << 20)).prefix(14)), 1009),
            ([UInt8]("GET / HTTP/1.1\r\n\r\n".utf8), 1002),
        ])
    func badFrames(bytes: [UInt8], code: Int) throws {
        let server = try Self.server()
        defer { server.shutdown(timeout: 1) }
        let client = try WebSocketClient(port: server.port, path: "/echo")
        client.send(bytes: bytes)
        let close = try #require(client.frame())
        #expect(close.opcode == 8 && close.closeCode == code && !close.masked)
        #expect(client.frame() == nil)
    }

    @Test("past the session limit a handshake gets 503, while plain requests are still answered")
    func sessionLimit() throws {
        let server = try Self.server(HTTPServer.Limits(webSockets: 1))
        defer { server.shutdown(timeout: 1) }
        let first = try WebSocketClient(port: server.port, path: "/echo")
        #expect(first.status == 101)
        let second = try WebSocketClient(port: server.port, path: "/echo")
        #expect(second.status == 503, "\(second.head)")
        #expect(WireClient(port: server.port).send(ServiceRequest(method: "GET", path: "/")).status == 200)
        first.send(text: "still here")
        #expect(first.text() == "still here")
    }

    @Test("a request to a WebSocket without Upgrade gets 426 and stays HTTP")
    func notAnUpgrade() throws {
        let server = try Self.server()
        defer { server.shutdown(timeout: 1) }
        let answer = WireClient(port: server.port).send(ServiceRequest(method: "GET", path: "/echo"))
        #expect(answer.status == 426)
        #expect(answer.headers.contains { $0.0.lowercased() == "upgrade" && $0.1 == "websocket" })
    }

    @Test("shutdown ends a session still sending to a client that stopped reading, and returns")
    func shutdownWithStuckSender() throws {
        let ended = Locked(false)
        let flood: HTTPServer.Handler = { request in
            (try? WebSocket.upgrade(request) { connection in
                let block = String(repeating: "x", count: 60_000)
                while (try? connection.send(text: block)) != nil {}
                ended.withLock { $0 = true }
            }) ?? .text("no")
        }
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, threads: 2, limits: HTTPServer.Limits(sendTimeout: 3600),
            bodyPolicy: { _, _ in .init(maximumBytes: 1024) }, handler: flood)
        let client = try WebSocketClient(port: server.port, path: "/flood")
        #expect(client.status == 101)
        // One frame, so the session is running; then the client reads nothing more, and the
        // session's sends fill both sockets' buffers and wait.
        #expect(client.frame()?.opcode == 1)
        server.shutdown(timeout: 1)
        #expect(ended.withLock { $0 }, "shutdown returned with the session still running")
    }

    @Test("shutdown closes open sessions with 1001 and returns")
    func shutdownClosesSessions() throws {
        let server = try Self.server()
        let clients = try (0..<3).map { _ in try WebSocketClient(port: server.port, path: "/echo") }
        for client in clients {
            client.send(text: "up")
            #expect(client.text() == "up")
        }
        server.shutdown(timeout: 5)
        for client in clients { #expect(client.closeCode() == 1001) }
    }
}
