import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// A ``SpeechService`` on test engines, and the way a test reaches it: called in process, or
/// through a real ``HTTPServer`` on a socket.
protocol ServiceHarness: ServiceClient {
    /// The service and its engines, built in this process either way.
    var local: InProcessService { get }
}

extension ServiceHarness {
    var service: SpeechService { local.service }
    var engine: SpeechEngine { local.engine }
    var directory: URL { local.directory }
}

extension InProcessService: ServiceHarness {
    var local: InProcessService { self }
}

/// The same service served by libmicrohttpd, as `speak serve` serves it, on a free port of this
/// machine, in this process; each call is a connection of its own, read off the socket as a
/// client reads it.
final class WireService: ServiceHarness {
    let local: InProcessService
    let server: HTTPServer
    let client: WireClient

    init(_ local: InProcessService) throws {
        self.local = local
        let service = local.service
        server = try HTTPServer(
            host: "127.0.0.1", port: 0, threads: 2, limits: local.service.configuration.httpLimits(),
            bodyPolicy: service.bodyPolicy, screen: service.screen, handler: service.respond)
        client = WireClient(port: server.port, authorization: local.authorization)
    }

    deinit { server.shutdown(timeout: 1) }

    var authorization: String? { client.authorization }

    func send(_ request: ServiceRequest) -> ServiceAnswer { client.send(request) }
}

/// How a service suite's test reaches the service: each test runs both ways, so what the routes
/// answer in process is what a client gets on the wire.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inProcess = "in process"
    case wire = "on the wire"

    var testDescription: String { rawValue }

    /// A fresh service (``InProcessService``'s parameters), reached this way.
    func harness(
        configuration: ServerConfiguration = ServerConfiguration(), tokens: Bool = true, cache: Bool = true,
        transcriber: any Transcriber = FixedTranscriber(text: "yes"), codecs: Codecs = .ffmpeg,
        voiceActivity: VoiceActivity = .level
    ) throws -> any ServiceHarness {
        let local = try InProcessService(
            configuration: configuration, tokens: tokens, cache: cache, transcriber: transcriber, codecs: codecs,
            voiceActivity: voiceActivity)
        switch self {
        case .inProcess: return local
        case .wire: return try WireService(local)
        }
    }
}
