/// Plays PCM on an ALSA device and stays alive until the device has drained, so a caller returns
/// only after the last sample was heard. Holds the machine-wide playback lock meanwhile.
public struct Player: Sendable {
    public static let defaultDevice = "default"

    public var device: String
    /// Wait for another speaker to finish (true) or fail with `PlaybackBusy` (false).
    public var waitForTurn: Bool
    /// Polled between periods; when it turns true, playback stops and `PlaybackInterrupted` is thrown.
    public var shouldStop: @Sendable () -> Bool

    public init(device: String = Player.defaultDevice, waitForTurn: Bool = true, shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.device = device
        self.waitForTurn = waitForTurn
        self.shouldStop = shouldStop
    }

    /// Plays what `produce` writes, as it writes it: playback starts on the first chunk.
    public func play(sampleRate: Int, produce: (_ write: (UnsafeBufferPointer<Int16>) throws -> Void) throws -> Void) throws {
        let lock = try PlaybackLock(wait: waitForTurn, shouldStop: shouldStop)
        let output = try PlaybackDevice(name: device, sampleRate: sampleRate)
        try produce { samples in try output.write(samples, shouldStop: shouldStop) }
        try output.drain(shouldStop: shouldStop)
        _ = consume lock
    }

    /// Plays the chunks `produce` writes, as it writes them: the device opens at the first chunk's
    /// sample rate. Returns what `produce` returns, once the device has drained.
    @discardableResult
    public func play<Result>(_ produce: (_ write: (PCMChunk) throws -> Void) throws -> Result) throws -> Result {
        let lock = try PlaybackLock(wait: waitForTurn, shouldStop: shouldStop)
        var output: PlaybackDevice?
        let result = try produce { chunk in
            if output == nil { output = try PlaybackDevice(name: device, sampleRate: chunk.sampleRate) }
            try output!.write(chunk.samples, shouldStop: shouldStop)
        }
        try output?.drain(shouldStop: shouldStop)
        _ = consume lock
        return result
    }

    /// Plays a whole buffer.
    public func play(_ pcm: PCMBuffer) throws {
        try play(sampleRate: pcm.sampleRate) { write in try pcm.samples.withUnsafeBufferPointer { try write($0) } }
    }

    /// Playback devices as `aplay -L` lists them.
    public static func devices() -> [(name: String, description: String)] { PlaybackDevice.list() }
}
