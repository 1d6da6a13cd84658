import FoundationEssentials
import Glibc

/// Several transcribers of one kind, each serving one call at a time: a pocketsphinx decoder is
/// not thread-safe and loads its model once, so a server keeps one per core, made on first need.
public final class TranscriberPool: Transcriber, Sendable {
    private let pool: BoundedPool<any Transcriber, any Error>

    /// What the pool's transcribers are, told without making one.
    public let about: TranscriberDescription?

    public init(
        size: Int, about: TranscriberDescription? = nil, make: @escaping @Sendable () throws -> any Transcriber
    ) {
        self.about = about
        pool = BoundedPool(capacity: size, make: make)
    }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        try pool.withItem { try $0.transcribe(audio, options: options) }
    }
}
