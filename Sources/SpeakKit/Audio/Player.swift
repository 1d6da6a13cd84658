/// Plays PCM on an ALSA device and stays alive until the device has drained, so a caller returns
/// only after the last sample was heard. Holds the machine-wide playback lock meanwhile.
public struct Player: Sendable {
    public static let defaultDevice = "default"

    public var device: String
    /// Wait for another speaker to finish (true) or fail with `PlaybackBusy` (false).
    public var waitForTurn: Bool
    /// Polled between periods; when it turns true, playback stops and `PlaybackInterrupted` is thrown.
    public var shouldStop: @Sendable () -> Bool
    /// The turn taken by ``openingAhead(sampleRate:)``, for the next `play`.
    private var ahead: Locked<PlaybackTurn?>?

    public init(
        device: String = Player.defaultDevice, waitForTurn: Bool = true,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) {
        self.device = device
        self.waitForTurn = waitForTurn
        self.shouldStop = shouldStop
    }

    /// Plays the chunks `produce` writes, as it writes them: the device opens at the first chunk's
    /// sample rate. Returns what `produce` returns, once the device has drained.
    ///
    /// Opening a device takes milliseconds (ALSA reads its configuration; PulseAudio connects):
    /// given the rate the chunks will come at, it opens on another thread while `produce` makes
    /// the first chunk.
    @discardableResult
    public func play<Result>(
        expectedSampleRate: Int? = nil, _ produce: (_ write: (PCMChunk) throws -> Void) throws -> Result
    ) throws -> Result {
        let turn =
            try ahead?.withLock { $0.take() }
            ?? PlaybackTurn(device: device, sampleRate: expectedSampleRate, wait: waitForTurn, shouldStop: shouldStop)
        return try withExtendedLifetime(turn) {
            var output: PlaybackDevice?
            let result = try produce { chunk in
                do {
                    if output == nil {
                        output =
                            try turn.device(at: chunk.sampleRate)
                            ?? PlaybackDevice(name: device, sampleRate: chunk.sampleRate)
                    }
                    try output!.write(chunk.samples, shouldStop: shouldStop)
                } catch let error as ALSAError {
                    throw error.playbackError
                }
            }
            do { try output?.drain(shouldStop: shouldStop) } catch let error as ALSAError { throw error.playbackError }
            return result
        }
    }

    /// This player with its turn at the speaker taken now and the device opening at `sampleRate`
    /// on another thread, for a caller that knows it will play before it knows what: `speak TEXT`
    /// reads its voices meanwhile, so the device is open when the first chunk comes. The next
    /// `play` uses both (a rate guessed wrong costs a reopen); until then the turn is held.
    public func openingAhead(sampleRate: Int) throws -> Player {
        var player = self
        player.ahead = Locked(
            try PlaybackTurn(device: device, sampleRate: sampleRate, wait: waitForTurn, shouldStop: shouldStop))
        return player
    }

    /// Plays a whole buffer.
    public func play(_ pcm: PCMBuffer) throws {
        try play { write in
            try pcm.samples.withUnsafeBufferPointer { try write(PCMChunk(samples: $0, sampleRate: pcm.sampleRate)) }
        }
    }

    /// Playback devices as `aplay -L` lists them.
    public static func devices() -> [(name: String, description: String)] { PlaybackDevice.list() }
}

/// A turn at the speaker (the machine-wide lock) and, when the audio's rate is known beforehand,
/// the device opening for it on another thread.
final class PlaybackTurn: Sendable {
    private let lock: PlaybackLock
    private let opening: OpeningDevice?

    init(device: String, sampleRate: Int?, wait: Bool, shouldStop: () -> Bool) throws {
        lock = try PlaybackLock(wait: wait, shouldStop: shouldStop)
        opening = sampleRate.map { OpeningDevice(name: device, sampleRate: $0) }
    }

    /// The device opened ahead, if it opened at `sampleRate`; `nil` if none was, or at another rate.
    func device(at sampleRate: Int) throws(ALSAError) -> PlaybackDevice? { try opening?.device(at: sampleRate) }

    // Never leave it opening: a device held past the turn would be busy for the next one.
    deinit { _ = try? opening?.device(at: 0) }
}
