import Foundation
import SpeakCLI
import SpeakKit
import SpeakServer
import SpeakTestSupport
import Testing

/// The command line's hand-off to a running server, in process: `LocalServerHandoff` (what `speak
/// -v joe` uses) against a `SpeechService` on its local socket, with test engines, so what arrives
/// is compared sample for sample with what the command would make itself.
@Suite("hand-off in the frame protocol")
struct HandoffProtocolTests {
    /// A test engine whose audio spells out the options it was given (rate, pitch, volume, SSML,
    /// the text's length), so the same options make the same samples and other options others.
    struct ProsodyEcho: Synthesizer {
        let heard = Locked<[SpeechOptions]>([])
        var features: SynthesisFeatures { [.rate, .pitch, .volume, .ssml, .streaming] }

        func synthesize(
            _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
            onChunk: (PCMChunk) throws -> Void
        ) throws {
            heard.withLock { $0.append(options) }
            let prosody = ((options.pitch ?? -1) * 1000 + options.volume) * (options.ssml ? -1 : 1)
            let head = [options.rate ?? -1, prosody, text.count].map { Int16(clamping: $0) }
            // More than the tenth of a second a short reply is padded to.
            let body = (0..<2000 + options.effectiveRate).map { Int16($0 % 2000 - 1000) }
            for part in [head, body] {
                try part.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: 16000)) }
            }
        }
    }

    /// A test engine with a long reply (more than a socket holds), which says when it has made it.
    struct LongReply: Synthesizer {
        static let chunks = 100
        static let samplesPerChunk = 16000
        let made = Locked(false)
        var features: SynthesisFeatures { [.streaming] }

        func synthesize(
            _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
            onChunk: (PCMChunk) throws -> Void
        ) throws {
            let second = (0..<Self.samplesPerChunk).map { Int16($0 % 200 - 100) }
            for _ in 0..<Self.chunks {
                try second.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: 16000)) }
            }
            made.withLock { $0 = true }
        }
    }

    /// A `speak serve`'s speech service on a local socket of its own, with a reply cache.
    final class LocalServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-frames-\(UUID().uuidString.prefix(8))")
        var socket: String { directory.appendingPathComponent("run/serve.sock").path }
        let echo = ProsodyEcho()
        let long = LongReply()
        let server: HTTPServer

        static let echoVoice = Voice(name: "echo", language: "en", engine: "echo")
        /// Fails after its first chunk, with a fault no other voice answers for.
        static let brokenVoice = Voice(name: "broken", language: "en", engine: "broken")
        /// Its engine reports its model missing.
        static let unreadyVoice = Voice(name: "unready", language: "en", engine: "unready")
        static let longVoice = Voice(name: "long", language: "en", engine: "long")

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var broken = ScriptedSynthesizer.Script()
            (broken.failsAfter, broken.failure) = (1, ScriptedSynthesizer.Fault())
            var unready = ScriptedSynthesizer.Script()
            unready.problems = ["voice:unready": "its model is not installed"]
            let engines = SynthesizerRegistry([
                "echo": { [echo] in echo },
                "broken": { [broken] in ScriptedSynthesizer(broken) },
                "unready": { [unready] in ScriptedSynthesizer(unready) },
                "long": { [long] in long },
            ])
            let engine = SpeechEngine(
                catalog: VoiceCatalog(voices: [Self.echoVoice, Self.brokenVoice, Self.unreadyVoice, Self.longVoice]),
                synthesizers: engines,
                cache: try ReplyCache(directory: directory.appendingPathComponent("cache"), maximumBytes: 1 << 20))
            let service = SpeechService(
                configuration: ServerConfiguration(), engine: engine, tokens: nil, player: Player(),
                transcription: TranscriptionEngine(transcriber: UnavailableTranscriber(reason: "not in these tests")),
                uploads: directory)
            server = try HTTPServer(
                socketPath: directory.appendingPathComponent("run/serve.sock").path, threads: 1,
                bodyPolicy: service.bodyPolicy, screen: service.screen, handler: service.respond,
                framedSession: service.handOff)
        }

        deinit {
            server.shutdown(timeout: 1)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Every chunk `synthesizer` makes for `text`, joined, with the rate it came at.
    static func speech(_ synthesizer: any Synthesizer, _ text: String, _ options: SpeechOptions) throws -> (
        samples: [Int16], rate: Int
    ) {
        var samples: [Int16] = []
        var rate = 0
        try synthesizer.synthesize(text, options: options, onProgress: nil) { chunk in
            samples += chunk.samples
            rate = chunk.sampleRate
        }
        return (samples, rate)
    }

    /// Whether two replies are the same samples; if not, says where they part (not every sample).
    static func same(_ one: [Int16], _ other: [Int16]) -> Bool {
        guard one != other else { return true }
        let first =
            zip(one, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(one.count, other.count)
        print("\(one.count) samples against \(other.count), first different at \(first)")
        return false
    }

    /// One HTTP/1.1 request on the socket, its whole answer as text.
    static func http(_ request: String, on path: String) throws -> String {
        let descriptor = Socket.connect(unixPath: path)
        guard descriptor >= 0 else { throw POSIXError(.ECONNREFUSED) }
        defer { close(descriptor) }
        _ = request.utf8CString.withUnsafeBufferPointer { send(descriptor, $0.baseAddress, $0.count - 1, 0) }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = recv(descriptor, &buffer, buffer.count, 0), count > 0 {
            answer.append(contentsOf: buffer[..<count])
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test("rate, pitch, volume and SSML arrive as given: the server's audio is the command's own")
    func optionsArriveAsGiven() throws {
        let server = try LocalServer()
        let voice = LocalServer.echoVoice
        let cases = [
            SpeechOptions(voice: voice, rate: 233, pitch: 71, volume: 37, ssml: true),
            SpeechOptions(voice: voice, rate: 120, pitch: 0, volume: 200),
            SpeechOptions(voice: voice),
        ]
        for options in cases {
            let here = ProsodyEcho()
            let handoff = LocalServerHandoff(local: here, socketPath: server.socket)
            let text = "<speak>Build passed.</speak>"
            let served = try Self.speech(handoff, text, options)
            #expect(here.heard.withLock { $0 }.isEmpty, "made by the server, not here")
            #expect(server.echo.heard.withLock { $0.last } == options)
            // Sample for sample what this command makes without a server.
            let alone = try Self.speech(ProsodyEcho(), text, options)
            #expect(served.rate == alone.rate)
            #expect(Self.same(served.samples, alone.samples), "\(options)")

            // Again: from the server's cache, the same samples.
            let made = server.echo.heard.withLock { $0.count }
            let again = try Self.speech(handoff, text, options)
            #expect(server.echo.heard.withLock { $0.count } == made, "a cached reply is not made again")
            #expect(Self.same(again.samples, alone.samples), "\(options)")
        }
    }

    @Test("the local socket still serves HTTP, and a connection that says nothing holds up no other")
    func httpStillServed() throws {
        let server = try LocalServer()
        // Connected, silent: the server waits for its first byte without blocking the rest.
        let silent = Socket.connect(unixPath: server.socket)
        #expect(silent >= 0)
        defer { close(silent) }

        let health = try Self.http(
            "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", on: server.socket)
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
        #expect(health.hasSuffix(#"{"status":"ok"}"#))
        let voices = try Self.http(
            "GET /voices HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", on: server.socket)
        #expect(voices.hasPrefix("HTTP/1.1 200") && voices.contains(#""name":"echo""#), "\(voices)")

        let options = SpeechOptions(voice: LocalServer.echoVoice, rate: 300)
        let here = ProsodyEcho()
        _ = try Self.speech(LocalServerHandoff(local: here, socketPath: server.socket), "Hello.", options)
        #expect(server.echo.heard.withLock { $0 } == [options])
        #expect(here.heard.withLock { $0 }.isEmpty)
    }

    /// A command plays as it reads, in real time: the model or worker making its reply must not
    /// wait for it, or every other client would.
    @Test("a command that has read nothing yet does not hold the engine: its reply is made all the same")
    func slowReaderHoldsNoEngine() throws {
        let server = try LocalServer()
        let descriptor = Socket.connect(unixPath: server.socket)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let request = SynthesisRequest(
            text: "A long reply.", options: SpeechOptions(voice: LocalServer.longVoice), format: .wav)
        let line = try request.line()
        #expect(line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } == line.count)
        // Nothing read yet: 3.2 MB of PCM is more than the socket holds.
        let deadline = Date().addingTimeInterval(10)
        while !server.long.made.withLock({ $0 }) && Date() < deadline { usleep(10_000) }
        #expect(server.long.made.withLock { $0 }, "the engine waited for the command to read")
        var samples = 0
        try WorkerFrame.receiveReply(from: descriptor) { samples += $0.samples.count }
        #expect(samples == LongReply.chunks * LongReply.samplesPerChunk)
    }

    @Test("a server that refuses before any audio leaves the text to the command, which speaks it itself")
    func refusedBeforeAudio() throws {
        let server = try LocalServer()
        for voice in [LocalServer.unreadyVoice, Voice(name: "unknown", language: "en", engine: "unready")] {
            let here = ScriptedSynthesizer()
            let options = SpeechOptions(voice: voice, volume: 50)
            let spoken = try Self.speech(LocalServerHandoff(local: here, socketPath: server.socket), "Hello.", options)
            #expect(here.requests.withLock { $0 } == ["Hello."], "spoken here")
            #expect(Self.same(spoken.samples, try Self.speech(ScriptedSynthesizer(), "Hello.", options).samples))
        }
    }

    @Test("a server that fails mid-reply ends the command with one line and exit 1, the audio so far kept")
    func failedMidReply() throws {
        let server = try LocalServer()
        let here = ScriptedSynthesizer()
        var samples = 0
        let handoff = LocalServerHandoff(local: here, socketPath: server.socket)
        let error = #expect(throws: (any Error).self) {
            try handoff.synthesize(
                "Hello.", options: SpeechOptions(voice: LocalServer.brokenVoice), onProgress: nil
            ) { samples += $0.samples.count }
        }
        #expect(samples == ScriptedSynthesizer.Script().samplesPerChunk, "the first chunk was played")
        #expect(here.requests.withLock { $0 }.isEmpty, "not said twice")
        let (code, message) = ExitCode.report(try #require(error))
        #expect(code == .failure)
        #expect(message == "the local speak serve stopped mid-reply: the scripted engine failed")
    }
}
