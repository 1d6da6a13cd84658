import FoundationEssentials
import Glibc
import Synchronization

/// Records from an ALSA capture device into the spool, as 16 kHz mono 16-bit WAV, with a live
/// level and duration, until `stop()`, a maximum duration, a size limit or (with end-pointing)
/// the silence after speech.
///
/// `record()` blocks its thread while recording; `stop()` and `cancel()` may be called from any
/// thread (a key press, a Ctrl-C handler, an HTTP request) and take effect within one read (≤ 50 ms).
/// Every change of `status` is handed to `onChange`, and every read's samples to `onAudio` (live
/// captions), on the recording thread: keep them short.
public final class Recorder: Sendable {
    public static let sampleRate = 16000
    /// Recordings shorter than this are refused with `RecorderError.tooShort`.
    public static let minimumDuration = 0.01

    public enum State: Sendable, Equatable {
        case idle
        /// Seconds recorded so far.
        case recording(duration: Double)
        case transcribing
        /// The last recording or transcription failed; one line.
        case error(String)
    }

    /// What a meter shows.
    public struct Status: Sendable, Equatable {
        public var state: State
        /// RMS of the last 50 ms, 0...1; 0 when not recording.
        public var level: Double
        /// Seconds recorded by the current (or last) recording.
        public var duration: Double
    }

    public struct Options: Sendable, Equatable {
        /// The ALSA device, as `arecord -L` lists it, or as `alsaConfiguration` defines it.
        public var device: String
        /// ALSA configuration (`.asoundrc` syntax) to look `device` up in, instead of the system's:
        /// `pcm.kitchen { type pulse server "tcp:kitchen.local" }` with `device: "kitchen"` records
        /// from the default source of that PulseAudio server. Only what it defines can be named.
        public var alsaConfiguration: String?
        /// Stop after this many seconds.
        public var maxDuration: Double?
        /// Stop before the WAV file grows past this many bytes (25 MB by default, the common upload limit).
        public var maxBytes: Int
        /// Stop on the silence after speech (and give up with `noSpeech` if none comes).
        public var untilSilence: EndPointer.Settings?
        public var spool: Spool

        public init(
            device: String = "default", maxDuration: Double? = nil, maxBytes: Int = 25 * 1024 * 1024,
            untilSilence: EndPointer.Settings? = nil, spool: Spool = Spool(), alsaConfiguration: String? = nil
        ) {
            self.device = device
            self.alsaConfiguration = alsaConfiguration
            self.maxDuration = maxDuration
            self.maxBytes = maxBytes
            self.untilSilence = untilSilence
            self.spool = spool
        }
    }

    public let options: Options
    private let onChange: @Sendable (Status) -> Void
    private let onAudio: (@Sendable (UnsafeBufferPointer<Int16>) -> Void)?
    private let current = Locked(Status(state: .idle, level: 0, duration: 0))
    /// 0: keep going, 1: stop, 2: cancel. Cleared when `record()` returns.
    private let request = Atomic<Int>(0)
    private let busy = Atomic<Bool>(false)

    private static let stopRequest = 1
    private static let cancelRequest = 2
    /// Frames per read: 20 ms, well inside the device's 200 ms buffer.
    private static let period = sampleRate / 50
    /// Frames the level is measured over: 50 ms.
    private static let levelWindow = sampleRate / 20

    public init(
        options: Options = .init(), onChange: @escaping @Sendable (Status) -> Void = { _ in },
        onAudio: (@Sendable (UnsafeBufferPointer<Int16>) -> Void)? = nil
    ) {
        self.options = options
        self.onChange = onChange
        self.onAudio = onAudio
    }

    public var status: Status { current.withLock { $0 } }
    public var state: State { status.state }
    public var level: Double { status.level }
    public var duration: Double { status.duration }

    /// Ends the recording; `record()` returns what was recorded (`StopReason.stopped`).
    /// Called before `record()`, the next recording stops at once.
    public func stop() {
        _ = request.compareExchange(expected: 0, desired: Self.stopRequest, ordering: .relaxed)
    }

    /// Ends the recording and deletes its file; `record()` throws `RecorderError.cancelled`.
    /// Called before `record()`, the next recording is cancelled at once.
    public func cancel() { request.store(Self.cancelRequest, ordering: .relaxed) }

    /// Records until one of the stop conditions; the file stays in the spool until
    /// `Spool.markDone`. Leaves the state `idle`, or `error` when it throws (`idle` on cancel).
    public func record() throws(RecorderError) -> Recording {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw .recordingFailed("this recorder is already recording")
        }
        defer {
            request.store(0, ordering: .relaxed)
            busy.store(false, ordering: .releasing)
        }
        do throws(RecorderError) {
            let recording = try capture()
            update(Status(state: .idle, level: 0, duration: recording.duration))
            return recording
        } catch {
            let duration = status.duration
            update(Status(state: error == .cancelled ? .idle : .error(error.description), level: 0, duration: duration))
            throw error
        }
    }

    /// Records, then transcribes with `transcribe`: the state goes recording → transcribing → idle
    /// (or error).
    public func record<Result>(thenTranscribe transcribe: (Recording) throws -> Result) throws -> Result {
        let recording = try record()
        return try transcribing { try transcribe(recording) }
    }

    /// Runs a transcription (of a new or a spooled recording) with the state `transcribing`, then
    /// `idle`, or `error` with the thrown error's description.
    public func transcribing<Result>(_ body: () throws -> Result) rethrows -> Result {
        let duration = status.duration
        update(Status(state: .transcribing, level: 0, duration: duration))
        do {
            let result = try body()
            update(Status(state: .idle, level: 0, duration: duration))
            return result
        } catch {
            update(Status(state: .error(String(describing: error)), level: 0, duration: duration))
            throw error
        }
    }

    private func update(_ status: Status) {
        current.withLock { $0 = status }
        onChange(status)
    }

    private func capture() throws(RecorderError) -> Recording {
        let device = try openDevice()
        let url: URL
        do {
            url = try options.spool.newRecordingURL()
        } catch {
            throw .recordingFailed(
                "cannot create the spool directory \(options.spool.directory.path): \(error)")
        }
        let file = try SpoolFile(url: url, sampleRate: Self.sampleRate)
        update(Status(state: .recording(duration: 0), level: 0, duration: 0))

        let maxFrames = min(
            options.maxDuration.map { Int(($0 * Double(Self.sampleRate)).rounded()) } ?? .max,
            max(0, options.maxBytes - 44) / 2)
        var endPointer = options.untilSilence.map { EndPointer(settings: $0) }
        var meter = LevelMeter(window: Self.levelWindow)
        var buffer = [Int16](repeating: 0, count: Self.period)
        var reason: Recording.StopReason?
        var failure: RecorderError?
        while reason == nil {
            switch request.load(ordering: .relaxed) {
            case Self.cancelRequest:
                device.stop()
                file.delete()
                throw .cancelled
            case Self.stopRequest:
                reason = .stopped
                continue
            default: break
            }
            let frames = min(Self.period, maxFrames - file.sampleCount)
            guard frames > 0 else {
                // Waiting for speech that never came, the limit is the same "no speech" as the timeout.
                if let endPointer, !endPointer.heardSpeech {
                    device.stop()
                    file.delete()
                    throw .noSpeech
                }
                reason = maxFrames == max(0, options.maxBytes - 44) / 2 ? .sizeLimit : .maxDuration
                continue
            }
            do throws(RecorderError) {
                try buffer.withUnsafeMutableBufferPointer { all throws(RecorderError) in
                    let chunk = UnsafeMutableBufferPointer(rebasing: all[..<frames])
                    do throws(ALSAError) { try device.read(into: chunk) } catch {
                        throw .recordingFailed(error.description)
                    }
                    try file.append(UnsafeBufferPointer(chunk))
                    meter.add(UnsafeBufferPointer(chunk))
                    onAudio?(UnsafeBufferPointer(chunk))
                }
            } catch {
                failure = error
                break
            }
            let duration = Double(file.sampleCount) / Double(Self.sampleRate)
            update(Status(state: .recording(duration: duration), level: meter.level, duration: duration))
            switch endPointer?.observe(level: meter.level, duration: Double(frames) / Double(Self.sampleRate)) {
            case .endOfSpeech: reason = .endOfSpeech
            case .noSpeech:
                device.stop()
                file.delete()
                throw .noSpeech
            default: break
            }
        }
        device.stop()
        do throws(RecorderError) { try file.finish() } catch { failure = failure ?? error }
        let duration = Double(file.sampleCount) / Double(Self.sampleRate)
        // After a failure, what was recorded stays in the spool (pending), unless it is nothing to speak of.
        if duration < Self.minimumDuration {
            file.delete()
            throw failure ?? .tooShort
        }
        if let failure { throw failure }
        return Recording(url: url, sampleRate: Self.sampleRate, duration: duration, stopReason: reason ?? .stopped)
    }

    private func openDevice() throws(RecorderError) -> CaptureDevice {
        do {
            return try CaptureDevice(
                name: options.device, sampleRate: Self.sampleRate, configuration: options.alsaConfiguration)
        } catch {
            guard error.function == "snd_pcm_open" else { throw .recordingFailed(error.description) }
            if error.isBusy { throw .deviceBusy(options.device) }
            if error.code == -EACCES || error.code == -EPERM { throw .permissionDenied(options.device) }
            throw .noCaptureDevice(options.device)
        }
    }
}

/// RMS over a sliding window of the last samples.
struct LevelMeter {
    private var ring: [Int16]
    private var next = 0
    private var sumOfSquares = 0

    init(window: Int) { ring = [Int16](repeating: 0, count: window) }

    mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        for sample in samples {
            let old = Int(ring[next])
            sumOfSquares += Int(sample) * Int(sample) - old * old
            ring[next] = sample
            next = (next + 1) % ring.count
        }
    }

    /// 0...1.
    var level: Double { (Double(sumOfSquares) / Double(ring.count)).squareRoot() / 32768 }
}
