/// Plays PCM on an ALSA device and stays alive until the device has drained, so a caller returns
/// only after the last sample was heard. Holds the machine-wide playback lock meanwhile.
public struct Player: Sendable {
    public static let defaultDevice = "default"

    public var device: String
    /// Wait for another speaker to finish (true) or fail with `PlaybackBusy` (false).
    public var waitForTurn: Bool
    /// Polled between periods; when it turns true, playback stops and `PlaybackInterrupted` is thrown.
    public var shouldStop: @Sendable () -> Bool

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
        let lock = try PlaybackLock(wait: waitForTurn, shouldStop: shouldStop)
        var opening = expectedSampleRate.map { OpeningDevice(name: device, sampleRate: $0) }
        // Never leave it opening: a device held past this call would be busy for the next one.
        defer { _ = try? opening?.device(at: 0) }
        var output: PlaybackDevice?
        let result = try produce { chunk in
            do {
                if output == nil {
                    let ahead = opening
                    opening = nil  // asked once, whether it opened or failed
                    output =
                        try ahead?.device(at: chunk.sampleRate)
                        ?? PlaybackDevice(name: device, sampleRate: chunk.sampleRate)
                }
                try output!.write(chunk.samples, shouldStop: shouldStop)
            } catch let error as ALSAError {
                throw error.playbackError
            }
        }
        do { try output?.drain(shouldStop: shouldStop) } catch let error as ALSAError { throw error.playbackError }
        _ = consume lock
        return result
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
