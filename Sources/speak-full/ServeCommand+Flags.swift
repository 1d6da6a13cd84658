import Foundation
import SpeakCLI
import SpeakKit
import SpeakServer
import SpeakWyoming

/// `speak serve`'s flags, and the help they make.
extension ServeCommand {
    struct Arguments {
        var local = Engines.LocalTranscriber()
        var configuration = ServerConfiguration()
        var hashToken: String?
        var tokenName = "client"
        /// Flags win over `--config`, wherever they stand: applied once the config is read.
        var overrides: [(inout ServerConfiguration) -> Void] = []
        var wyoming = WyomingOptions()
    }

    typealias Flag = CommandFlags<Arguments>.Flag

    /// A setting of the configuration file, given on the command line.
    private static func setting(
        _ names: String..., value: String, help: String, _ set: @escaping (inout ServerConfiguration, String) -> Void
    ) -> Flag {
        Flag(names: names, value: value, help: help) { arguments, text, _ in
            arguments.overrides.append { set(&$0, text) }
        }
    }

    private static func number(
        _ name: String, value: String, help: String, _ set: @escaping (inout ServerConfiguration, Int) -> Void
    ) -> Flag {
        .value(name, value: value, help: help) { arguments, text in
            guard let number = Int(text), number >= 0 else {
                throw UsageError("\(name) must be a whole number, not '\(text)'")
            }
            arguments.overrides.append { set(&$0, number) }
        }
    }

    private static var serverFlags: [Flag] {
        [
            .value("--config", value: "FILE", help: "read settings from a JSON file; flags win over it") {
                try readable($1, "config")
                do { $0.configuration = try ServerConfiguration(file: URL(fileURLWithPath: $1)) } catch {
                    throw InputError(code: .dataError, message: "cannot read config \($1): \(error)")
                }
            },
            setting("--host", value: "H", help: "the address to listen on (default 127.0.0.1)") { $0.host = $1 },
            number("--port", value: "N", help: "the port (default 8080; 0 picks a free one)") { $0.port = $1 },
            setting("--tokens", value: "FILE", help: "the tokens file: without one, no token is asked") {
                $0.tokensFile = $1
            },
            setting("--cache-dir", value: "DIR", help: "the reply cache (speak --cache shares it)") {
                $0.cacheDirectory = $1
            },
            number("--cache-bytes", value: "N", help: "the reply cache's size limit, in bytes") { $0.cacheBytes = $1 },
            number("--workers", value: "N", help: "espeak-ng worker processes (default: one per core)") {
                $0.workers = $1
            },
            number("--threads", value: "N", help: "threads serving connections (default: one per core)") {
                $0.threads = $1
            },
            number("--rate-limit", value: "PER_MINUTE", help: "requests a minute per token (default 120)") {
                $0.rateLimitPerMinute = $1
            },
            number("--realtime-sessions", value: "N", help: "live transcription sessions at once (default 8)") {
                $0.realtimeSessions = $1
            },
            setting("--voices-dir", value: "DIR", help: "also load voice files (*.json) from DIR") {
                $0.voicesDirectory = $1
            },
            setting("-a", "--device", value: "NAME", help: "the ALSA device POST /play speaks on") { $0.device = $1 },
        ]
    }

    private static var wyomingFlags: [Flag] {
        [
            .value("--wyoming", value: "tcp://HOST:PORT", help: "also serve Wyoming (Home Assistant) there") {
                let uri = $1
                switch Result(catching: { () throws(WyomingServerError) in try WyomingAddress(uri: uri) }) {
                case .success(let address): $0.wyoming.address = address
                case .failure(let error): throw UsageError(error.description)
                }
            },
            .switch("--no-http", help: "serve Wyoming alone") { $0.wyoming.httpToo = false },
            .switch("--zeroconf", help: "advertise Wyoming as _wyoming._tcp through avahi-daemon") {
                $0.wyoming.zeroconf = true
            },
            .value("--zeroconf-name", value: "NAME", help: "the name advertised (default: speak); implies --zeroconf") {
                $0.wyoming.zeroconfName = $1
                $0.wyoming.zeroconf = true
            },
        ]
    }

    private static var tokenFlags: [Flag] {
        [
            .value("--hash-token", value: "TOKEN", help: "print the tokens file's line for TOKEN, and exit") {
                $0.hashToken = $1
            },
            .value("--name", value: "NAME", help: "with --hash-token: whose token it is (default: client)") {
                $0.tokenName = $1
            },
        ]
    }

    static var flags: CommandFlags<Arguments> {
        CommandFlags(
            command: "speak serve", summary: summary,
            flags: serverFlags + TranscriptionFlags.local(\.local) + wyomingFlags + tokenFlags,
            epilogue: epilogue)
    }
}
