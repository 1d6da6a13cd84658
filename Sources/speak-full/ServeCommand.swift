import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakServer
import SpeakUpstream
import SpeakWyoming

/// `speak serve`: the HTTP voice reply service.
enum ServeCommand {
    static let summary = """
        speak serve: the HTTP voice reply service (MP3 over HTTP, OpenAI-compatible), and Home
        Assistant's Wyoming protocol.

        usage: speak serve [--host H] [--port N] [--config FILE] [--tokens FILE] [--cache-dir DIR]
                           [--cache-bytes N] [--workers N] [--threads N] [--rate-limit PER_MINUTE]
                           [--voices-dir DIR] [--device NAME] [--realtime-sessions N]
                           [--engine whisper|pocketsphinx] [--model NAME|PATH]   (the local transcriber)
                           [--wyoming tcp://HOST:PORT [--no-http] [--zeroconf [--zeroconf-name NAME]]]
               speak serve --hash-token TOKEN [--name NAME]   (prints a line for the tokens file)
        """

    static let epilogue = """
        Endpoints: GET / (a web page), /health, /ready, /token, /voices, /v1/models, /v1/audio/voices,
        /speak?text=…; POST /speak, /api/speak, /v1/audio/speech, /play, /api/transcribe,
        /v1/audio/transcriptions, /v1/audio/translations; GET /v1/realtime?intent=transcription (a
        WebSocket; --realtime-sessions, else $SPEAK_REALTIME_SESSIONS, of them at once). All but /
        and /health need 'Authorization: Bearer TOKEN' when a tokens file is configured. SIGHUP
        reloads the tokens file; SIGTERM finishes requests in flight, then exits. Commands of the
        same user reach it without a token on the local socket $XDG_RUNTIME_DIR/speak/serve.sock
        (or $SPEAK_SOCKET).

        Wyoming: --wyoming tcp://0.0.0.0:10200 also serves Wyoming TTS and STT (Home Assistant's
        protocol, as wyoming-piper and wyoming-faster-whisper do) on that address: every installed
        voice, streaming synthesis, the same transcriber. It has no tokens: bind it where only
        your Home Assistant can reach it. --no-http serves Wyoming alone. --zeroconf advertises
        it as _wyoming._tcp through avahi-daemon (Debian's avahi-utils), under the host's real
        addresses, named NAME (default: speak). Its limits come from SPEAK_WYOMING_LIMITS, as
        NAME=VALUE,… with the defaults connections=64, per-address=32 (half the connections),
        header-seconds=5, min-bytes-per-second=16384, idle-seconds=300, linger-seconds=2,
        text-characters=16384, audio-seconds=600.
        """

    static func main(_ arguments: [String]) -> Int32 {
        runReporting(as: "speak serve") { try run(arguments) }
    }

    /// A file named on the command line that cannot be read is exit 66 (EX_NOINPUT), in one line.
    static func readable(_ path: String, _ what: String) throws {
        guard access(path, R_OK) == 0 else {
            throw InputError(
                code: .noInput, message: "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func run(_ arguments: [String]) throws {
        var parsed = Arguments()
        try flags.scan(arguments, into: &parsed) { _, word in
            throw UsageError("speak serve takes no operands, not '\(word)' (speak serve --help)")
        }
        var (configuration, wyoming) = (parsed.configuration, parsed.wyoming)
        let (local, hashToken, tokenName, overrides) = (
            parsed.local, parsed.hashToken, parsed.tokenName, parsed.overrides
        )
        if let hashToken {
            guard !hashToken.allSatisfy(\.isWhitespace) else {
                throw UsageError("--hash-token needs a token, not blanks")
            }
            return print(TokenStore.hashLine(for: hashToken, name: tokenName))
        }
        switch EnvironmentSettings.current.realtimeSessions {
        case .success(let count)?: configuration.realtimeSessions = count
        case .failure(let rejected)?: throw UsageError(rejected.description)
        case nil: break
        }
        for override in overrides { override(&configuration) }
        // 0 binds a free port, which the "listening on" line names.
        guard (0...65535).contains(configuration.port) else {
            throw UsageError("the port must be 0 to 65535, not \(configuration.port)")
        }
        // A limit of nothing would refuse every request: a mistake, not a setting.
        guard configuration.rateLimitPerMinute > 0, configuration.rateLimitBurst > 0 else {
            throw UsageError(
                "the rate limit must be at least 1 request a minute and a burst of 1, not "
                    + "\(configuration.rateLimitPerMinute) and \(configuration.rateLimitBurst)")
        }
        if let tokens = configuration.tokensFile { try readable(tokens, "tokens file") }
        if wyoming.address == nil && (!wyoming.httpToo || wyoming.zeroconf) {
            throw UsageError("\(wyoming.httpToo ? "--zeroconf" : "--no-http") needs --wyoming tcp://HOST:PORT")
        }
        if wyoming.address != nil { wyoming.limits = try WyomingFrontEnd.limits() }
        // Refused before anything listens or says it does.
        if wyoming.zeroconf, let address = wyoming.address, let refusal = ZeroconfAdvertisement.refusal(for: address) {
            throw InputError(code: .unavailable, message: String(describing: refusal))
        }
        try serve(configuration, local: local, wyoming: wyoming)
    }

    private static func startWyoming(_ address: WyomingAddress, _ service: WyomingService) throws -> WyomingServer {
        let server = try WyomingServer(address: address, service: service)
        FileHandle.standardOutput.write(Data("speak serve: Wyoming on \(server.address)\n".utf8))
        return server
    }

    private static func advertise(_ name: String, _ address: WyomingAddress) throws -> ZeroconfAdvertisement {
        let published = try ZeroconfAdvertisement(name: name, address: address)
        FileHandle.standardOutput.write(
            Data("speak serve: advertised as '\(published.name)' (\(ZeroconfAdvertisement.serviceType))\n".utf8))
        return published
    }

    /// `--wyoming`, `--no-http`, `--zeroconf`.
    struct WyomingOptions {
        var address: WyomingAddress?
        var httpToo = true
        var zeroconf = false
        var zeroconfName = "speak"
        var limits = WyomingLimits()
    }

    /// A new `speak-uploads-XXXXXX` in the temporary directory ($TMPDIR, else /tmp), mode 0700.
    private static func uploadSpool() throws -> URL {
        let parent = FileManager.default.temporaryDirectory.path
        do throws(SystemCallError) {
            let path = try FileSystem.makeUniqueDirectory(in: parent, prefix: "speak-uploads-")
            return URL(fileURLWithPath: path, isDirectory: true)
        } catch {
            throw InputError(
                code: .cannotCreate, message: "cannot make the upload spool in \(parent): \(error.message)")
        }
    }

    private static func serve(
        _ configuration: ServerConfiguration, local: Engines.LocalTranscriber, wyoming: WyomingOptions
    ) throws {
        signal(SIGPIPE, SIG_IGN)
        let catalog = try VoiceCatalog.standard(adding: configuration.voicesDirectory)
        let cacheDirectory = configuration.cacheDirectory ?? ReplyCache.defaultDirectory.path
        let cache: ReplyCache
        do {
            cache = try ReplyCache(
                directory: URL(fileURLWithPath: cacheDirectory), maximumBytes: configuration.cacheBytes)
        } catch {
            throw InputError(code: .cannotCreate, message: "cannot make the reply cache in \(cacheDirectory): \(error)")
        }
        let tokens = try configuration.tokensFile.map { try TokenStore(file: URL(fileURLWithPath: $0)) }
        // Before anything listens or says it does: a SIGTERM sent as soon as the server is up must
        // find its handler (ignored in between, it was lost and the server ran on).
        let stopped = DispatchSemaphore(value: 0)
        let signals = SignalHandlers()
        signals.on(SIGHUP) {
            do {
                try tokens?.reload()
                FileHandle.standardError.write(Data("speak serve: tokens reloaded\n".utf8))
            } catch {
                FileHandle.standardError.write(
                    Data("speak serve: tokens not reloaded, keeping the old ones: \(error)\n".utf8))
            }
        }
        for stop in [SIGTERM, SIGINT] { signals.on(stop) { stopped.signal() } }
        let workers = try WorkerPool(
            executable: Handover.lightExecutable() ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            size: configuration.effectiveWorkers)
        // The upload spool: a fresh private directory (in a shared /tmp, a predictable name could
        // be made first by another user), removed on a clean stop.
        let uploads = try uploadSpool()
        defer { try? FileManager.default.removeItem(at: uploads) }
        // A Whisper model that cannot load leaves the rest of the server working: transcription
        // answers 503 with the reason, logged once here.
        let transcriber: any Transcriber
        do {
            transcriber = try Engines.transcriber(
                upstream: configuration.transcription, local: local, poolSize: configuration.effectiveWorkers)
        } catch {
            FileHandle.standardError.write(Data("speak serve: transcription unavailable: \(error)\n".utf8))
            transcriber = UnavailableTranscriber(reason: String(describing: error))
        }
        let engine = SpeechEngine(
            catalog: catalog, synthesizers: Engines.serverSynthesizers(workers: workers), cache: cache,
            codecs: Engines.codecs)
        let transcription = Engines.transcription(transcriber)
        let service = SpeechService(
            configuration: configuration, engine: engine, tokens: tokens, player: Player(device: configuration.device),
            transcription: transcription, uploads: uploads)
        var server: HTTPServer?
        if wyoming.httpToo {
            let http = try HTTPServer(
                host: configuration.host, port: configuration.port, threads: configuration.effectiveThreads,
                limits: configuration.httpLimits(),
                bodyPolicy: service.bodyPolicy, screen: service.screen, handler: service.respond)
            if tokens == nil {
                FileHandle.standardError.write(Data("speak serve: no tokens file: every request is allowed\n".utf8))
            }
            FileHandle.standardOutput.write(
                Data("speak serve: listening on http://\(configuration.host):\(http.port)\n".utf8))
            server = http
        }
        // The user's own commands (`speak -v joe …`) reach the loaded models here, without a token.
        var local: HTTPServer?
        if wyoming.httpToo, let path = LocalSocket.path {
            do {
                local = try HTTPServer(
                    socketPath: path, threads: 1,
                    limits: configuration.httpLimits(connections: HTTPServer.Limits().connections),
                    bodyPolicy: service.bodyPolicy, screen: service.screen, handler: service.respond,
                    framedSession: service.handOff)
                FileHandle.standardError.write(Data("speak serve: local commands on \(path)\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("speak serve: no local socket: \(error)\n".utf8))
            }
        }
        var wyomingServer: WyomingServer?
        var advertisement: ZeroconfAdvertisement?
        if let address = wyoming.address {
            let wyomingService = WyomingService(
                engine: engine, transcription: transcription, transcriberInfo: .init(transcriber),
                speakers: .init(engine: engine), limits: wyoming.limits)
            do {
                wyomingServer = try startWyoming(address, wyomingService)
                if wyoming.zeroconf { advertisement = try advertise(wyoming.zeroconfName, wyomingServer!.address) }
            } catch {
                wyomingServer?.shutdown()
                local?.shutdown(timeout: 0)
                server?.shutdown(timeout: 0)
                workers.shutdown()
                throw InputError(code: .unavailable, message: String(describing: error))
            }
        }

        stopped.wait()
        advertisement?.withdraw()
        wyomingServer?.shutdown()
        local?.shutdown(timeout: 1)
        server?.shutdown(timeout: configuration.shutdownGraceSeconds)
        workers.shutdown()
    }

}

/// Signals delivered on a queue instead of in a handler, so any code may run in response.
final class SignalHandlers: Sendable {
    private let sources = Locked<[any DispatchSourceSignal]>([])
    private let queue = DispatchQueue(label: "speak.signals")

    func on(_ number: Int32, _ handler: @escaping @Sendable () -> Void) {
        signal(number, SIG_IGN)
        sources.withLock { sources in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }
}
