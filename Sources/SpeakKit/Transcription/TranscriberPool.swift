import FoundationEssentials
import Glibc

/// Several transcribers of one kind, each serving one call at a time: a pocketsphinx decoder is
/// not thread-safe and loads its model once, so a server keeps one per core, made on first need.
/// `@unchecked`: `condition` guards the state below, and a caller must wait on it for a free
/// transcriber, which `Mutex` cannot do.
public final class TranscriberPool: Transcriber, @unchecked Sendable {
    private let size: Int
    private let make: @Sendable () throws -> any Transcriber
    private let condition = ThreadCondition()
    private var idle: [any Transcriber] = []
    private var made = 0

    /// What the pool's transcribers are, told without making one.
    public let about: TranscriberDescription?

    public init(
        size: Int, about: TranscriberDescription? = nil, make: @escaping @Sendable () throws -> any Transcriber
    ) {
        self.size = max(1, size)
        self.about = about
        self.make = make
    }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        let transcriber = try checkOut()
        defer { checkIn(transcriber) }
        return try transcriber.transcribe(audio, options: options)
    }

    private func checkOut() throws -> any Transcriber {
        condition.lock()
        while idle.isEmpty && made >= size { condition.wait() }
        if let transcriber = idle.popLast() {
            condition.unlock()
            return transcriber
        }
        made += 1
        condition.unlock()
        do {
            return try make()
        } catch {
            condition.withLock { made -= 1 }
            condition.signal()
            throw error
        }
    }

    private func checkIn(_ transcriber: any Transcriber) {
        condition.withLock { idle.append(transcriber) }
        condition.signal()
    }
}
