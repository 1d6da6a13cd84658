import Foundation
import SpeakKit
import SpeakMedia
import SpeakTestSupport

@testable import SpeakServer

/// A ``SpeechService`` built in this process on test engines, called as the HTTP server calls it,
/// without a socket: one ``ServiceClient``, beside ``WireService``, which serves the same service
/// through a real `HTTPServer`. Route rules, auth, error mapping, caching and fallback are tested
/// both ways; a spawned `speak serve` is kept for what needs a process (start-up, signals,
/// scale-out, the browser, real clients).
final class InProcessService: ServiceClient {
    static let token = "in-process-token"

    /// The voices every service here knows, one per kind of engine behaviour.
    enum Voices {
        /// A streaming engine that speaks: three chunks of a tone. It calls itself natural, so it
        /// answers OpenAI's voice names.
        static let scripted = Voice(name: "scripted", language: "en-US", engine: "scripted")
        /// A streaming engine that fails before its first chunk, with a fault no voice answers for.
        static let broken = Voice(name: "broken", language: "en-US", engine: "broken")
        /// A streaming engine that fails after two chunks have gone out.
        static let cut = Voice(name: "cut", language: "en-US", engine: "cut")
        /// An engine that reports its model missing.
        static let missing = Voice(name: "missing", language: "en-US", engine: "missing")
        /// A remote engine (answers whole) that is down; espeak-ng's `default` answers for it.
        static let remote = Voice(
            name: "remote", language: "en-US", engine: "remote", settings: .object(["fallback": .string("default")]))
        static let all = [scripted, broken, cut, missing, remote]
    }

    static var natural: ScriptedSynthesizer.Script {
        var script = ScriptedSynthesizer.Script()
        script.features.insert(.natural)
        return script
    }

    static var broken: ScriptedSynthesizer.Script {
        var script = ScriptedSynthesizer.Script()
        (script.failsAfter, script.failure) = (0, ScriptedSynthesizer.Fault())
        return script
    }

    static var cut: ScriptedSynthesizer.Script {
        var script = ScriptedSynthesizer.Script()
        (script.chunks, script.failsAfter, script.failure) = (40, 20, ScriptedSynthesizer.Fault())
        return script
    }

    static var missing: ScriptedSynthesizer.Script {
        var script = ScriptedSynthesizer.Script()
        script.problems = ["voice:missing": "the model en_US-missing.onnx is not installed"]
        return script
    }

    static var remote: ScriptedSynthesizer.Script {
        var script = ScriptedSynthesizer.Script()
        (script.failsAfter, script.features) = (0, [])
        return script
    }

    let directory: URL
    let service: SpeechService
    let engine: SpeechEngine

    /// `tokens`: with a tokens file admitting ``token``; without, every client is anonymous.
    /// `codecs`: FFmpeg's, as `speak serve` composes them.
    init(
        configuration: ServerConfiguration = ServerConfiguration(), tokens: Bool = true, cache: Bool = true,
        transcriber: any Transcriber = FixedTranscriber(text: "yes"), codecs: Codecs = .ffmpeg,
        voiceActivity: VoiceActivity = .level
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("in-process-\(UUID().uuidString)")
        let uploads = directory.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let synthesizers = SynthesizerRegistry([
            EspeakSynthesizer.engineName: { try EspeakSynthesizer.shared() },
            "scripted": { ScriptedSynthesizer(Self.natural) }, "broken": { ScriptedSynthesizer(Self.broken) },
            "cut": { ScriptedSynthesizer(Self.cut) }, "missing": { ScriptedSynthesizer(Self.missing) },
            "remote": { ScriptedSynthesizer(Self.remote) },
        ])
        let replies =
            cache ? try ReplyCache(directory: directory.appendingPathComponent("cache"), maximumBytes: 1 << 24) : nil
        engine = SpeechEngine(
            catalog: VoiceCatalog(voices: Voices.all), synthesizers: synthesizers, cache: replies, codecs: codecs)
        var store: TokenStore?
        if tokens {
            let file = directory.appendingPathComponent("tokens")
            try Data((TokenStore.hashLine(for: Self.token, name: "tests") + "\n").utf8).write(to: file)
            store = try TokenStore(file: file)
        }
        service = SpeechService(
            configuration: configuration, engine: engine, tokens: store, player: Player(device: "null"),
            transcription: TranscriptionEngine(
                transcriber: transcriber, decoder: codecs.decoder, voiceActivity: voiceActivity),
            uploads: uploads)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The token's header, sent unless a call names another.
    var authorization: String? { "Bearer \(Self.token)" }

    /// The request as libmicrohttpd would hand it over, answered as `HTTPServer` answers it: its
    /// head screened, its body taken by the route's policy (the size limit, uploads spooled and
    /// parsed), then the route called; a HEAD's body dropped.
    func send(_ request: ServiceRequest) -> ServiceAnswer {
        var head = HTTPRequest(
            method: request.method, path: request.path, query: request.query, headers: request.headers)
        head.address = request.address ?? "127.0.0.1"
        if let refusal = service.screen(head) { return ServiceAnswer(refusal) }
        let exchange = Exchange(request: head, policy: service.bodyPolicy(method: head.method, path: head.path))
        request.body?.withUnsafeBytes { exchange.receive($0) }
        if let failure = exchange.finishBody() { return ServiceAnswer(failure.response) }
        // The spooled upload lives as long as its exchange: until the answer is made.
        var answer = withExtendedLifetime(exchange) { ServiceAnswer(service.respond(to: exchange.request)) }
        // The routes answer HEAD as GET; libmicrohttpd sends the headers alone.
        if request.method == "HEAD" { answer.body = Data() }
        return answer
    }
}

/// A response as a client would receive it, its body produced the way `HTTPServer` produces one:
/// a deferred body computed (once more if worth retrying); a stream run, whose failure before its
/// first bytes becomes the error's answer (503 unless an ``HTTPError``) and after them cuts the reply.
extension ServiceAnswer {
    init(_ response: HTTPResponse) {
        switch response.body {
        case .data(let data):
            self.init(status: response.status, headers: response.headers, body: data)
        case .deferred(let compute):
            var answer = compute()
            if answer.worthRetrying { answer = compute() }
            guard case .data = answer.body else {
                self.init(HTTPError(500, "a deferred response nested in another").response)
                return
            }
            self.init(answer)
        case .stream(let produce):
            self = Self.run(produce, response)
        case .upgrade:
            // The handshake's answer; the WebSocket itself needs a socket (WireService).
            self.init(status: response.status, headers: response.headers, body: Data())
        }
    }

    private static func run(
        _ produce: @Sendable (_ write: (Data) throws -> Void) throws -> Void, _ response: HTTPResponse
    ) -> ServiceAnswer {
        var body = Data()
        for attempt in 1...2 {
            do {
                try produce { body.append($0) }
                var answer = ServiceAnswer(status: response.status, headers: response.headers, body: body)
                answer.streamed = true
                return answer
            } catch {
                if !body.isEmpty {
                    var answer = ServiceAnswer(status: response.status, headers: response.headers, body: body)
                    (answer.streamed, answer.cut) = (true, true)
                    return answer
                }
                if attempt == 1, (error as? any TransientError)?.isTransient == true { continue }
                let failure =
                    (error as? HTTPError)
                    ?? HTTPError(503, "the reply could not be made: \(error)", code: "engine_unavailable")
                return ServiceAnswer(failure.response)
            }
        }
        return ServiceAnswer(HTTPError(500, "unreachable").response)
    }
}
