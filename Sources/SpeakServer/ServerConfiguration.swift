import Foundation
import SpeakKit
import SpeakUpstream

/// `speak serve`'s settings: a JSON file (`--config`), then flags on top.
public struct ServerConfiguration: Codable, Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Threads polling connections; 0 means one per core.
    public var threads = 0
    /// Synthesis worker processes; 0 means one per core.
    public var workers = 0
    /// Bearer tokens, stored hashed (`speak serve --hash-token`). Without one, no auth (local use).
    public var tokensFile: String?
    public var cacheDirectory: String?
    public var cacheBytes = ReplyCache.defaultMaximumBytes
    public var rateLimitPerMinute = 120
    public var rateLimitBurst = 30
    public var maximumTextCharacters = 4096
    public var maximumBodyBytes = 64 << 10
    /// The longest upload transcribed, in seconds. Two hours is 25 MB of 28 kbps speech; a 25 MB
    /// file of near-silent Opus would decode to tens of hours and gigabytes of samples.
    public var maximumAudioSeconds = TranscriptionEngine.defaultMaximumSeconds
    /// The ALSA device `POST /play` speaks on.
    public var device = "default"
    public var voicesDirectory: String?
    /// Open connections at most; one more is answered 503 (see ``HTTPServer/Limits``).
    public var connectionLimit = 2048
    /// Seconds an idle connection is kept open.
    public var idleTimeoutSeconds = 15
    /// Seconds a reply waits for a client that has stopped reading it before it is abandoned.
    public var sendTimeoutSeconds = 60
    /// WebSocket sessions (`/v1/realtime`) open at most: each has a thread and may keep a core
    /// decoding. One more handshake is answered 503.
    public var realtimeSessions = 8
    /// Seconds SIGTERM waits for requests in flight before ending them.
    public var shutdownGraceSeconds = 30.0
    /// Transcribe through this upstream (Groq, OpenAI, another speak serve) instead of pocketsphinx.
    public var transcription: TranscriptionUpstream?

    public init() {}

    public init(file: URL) throws {
        self = try JSONDecoder().decode(ServerConfiguration.self, from: Data(contentsOf: file))
    }

    public var effectiveThreads: Int { threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount }
    /// The HTTP server's limits; `connections` is for the TCP port (the local socket has only its user).
    public func httpLimits(connections: Int? = nil) -> HTTPServer.Limits {
        HTTPServer.Limits(
            connections: connections ?? connectionLimit, idleTimeout: idleTimeoutSeconds,
            sendTimeout: sendTimeoutSeconds, webSockets: realtimeSessions)
    }

    public var effectiveWorkers: Int { workers > 0 ? workers : ProcessInfo.processInfo.activeProcessorCount }

    // Every key optional in the file: missing ones keep the defaults above.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        host = try value(.host, host)
        port = try value(.port, port)
        threads = try value(.threads, threads)
        workers = try value(.workers, workers)
        tokensFile = try container.decodeIfPresent(String.self, forKey: .tokensFile)
        cacheDirectory = try container.decodeIfPresent(String.self, forKey: .cacheDirectory)
        cacheBytes = try value(.cacheBytes, cacheBytes)
        rateLimitPerMinute = try value(.rateLimitPerMinute, rateLimitPerMinute)
        rateLimitBurst = try value(.rateLimitBurst, rateLimitBurst)
        maximumTextCharacters = try value(.maximumTextCharacters, maximumTextCharacters)
        maximumBodyBytes = try value(.maximumBodyBytes, maximumBodyBytes)
        maximumAudioSeconds = try value(.maximumAudioSeconds, maximumAudioSeconds)
        device = try value(.device, device)
        voicesDirectory = try container.decodeIfPresent(String.self, forKey: .voicesDirectory)
        connectionLimit = try value(.connectionLimit, connectionLimit)
        idleTimeoutSeconds = try value(.idleTimeoutSeconds, idleTimeoutSeconds)
        sendTimeoutSeconds = try value(.sendTimeoutSeconds, sendTimeoutSeconds)
        shutdownGraceSeconds = try value(.shutdownGraceSeconds, shutdownGraceSeconds)
        realtimeSessions = try value(.realtimeSessions, realtimeSessions)
        transcription = try container.decodeIfPresent(TranscriptionUpstream.self, forKey: .transcription)
    }
}
