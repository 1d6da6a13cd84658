import Foundation
import SpeakKit

/// The `upstream` engine: a voice whose replies come from another text-to-speech server as MP3,
/// decoded here to PCM like any engine's. The voice file holds an ``Upstream`` under `"upstream"`.
/// It does not stream (the upstream's reply is fetched whole), so the engine may fall back to a
/// local voice when the upstream fails.
public struct UpstreamSynthesizer: Synthesizer {
    public static let engineName = "upstream"
    public let client: UpstreamClient
    /// Whether a URL accepts connections now, for ``problems(with:)``.
    private let reachable: @Sendable (String) -> Bool

    public init(
        client: UpstreamClient = UpstreamClient(), reachable: @escaping @Sendable (String) -> Bool = { _ in true }
    ) {
        self.client = client
        self.reachable = reachable
    }

    /// Speed is sent to OpenAI-style upstreams as the ratio of the rate asked for to the voice's.
    public var features: SynthesisFeatures { [.rate] }

    public func encodedReply(_ text: String, options: SpeechOptions, format: ReplyFormat) throws -> Data? {
        guard format == .mp3 else { return nil }
        return try fetch(text, options: options)
    }

    public func source(of voice: Voice) -> String? { try? voice.settings(as: Upstream.self).url }

    private func fetch(_ text: String, options: SpeechOptions) throws -> Data {
        let upstream = try options.voice.settings(as: Upstream.self)
        let speed = options.rate.map { Double($0) / Double(max(options.voice.rate, 1)) }
        return try client.fetch(text, speed: speed, from: upstream)
    }

    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?, onChunk: (PCMChunk) throws -> Void
    ) throws {
        let pcm = try PCMBuffer(audio: fetch(text, options: options))
        onProgress?(1)
        try pcm.samples.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: pcm.sampleRate)) }
    }

    public func problems(with voices: [Voice]) -> [String: String] {
        let urls = Set(voices.compactMap { try? $0.settings(as: Upstream.self).url })
        return Dictionary(uniqueKeysWithValues: urls.filter { !reachable($0) }.map { ($0, "unreachable") })
    }
}

/// When an upstream fails, a local voice may answer instead.
extension UpstreamError: FallbackEligible {}
