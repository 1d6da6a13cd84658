import Foundation
import SpeakKit
import Synchronization
import Testing

/// A private PulseAudio daemon for one test: a real-time audio server with no sound card.
///
/// Its default sink is a pipe sink paced by the system clock, so what it writes to its FIFO is
/// what a listener hears, when they hear it. (A null sink's monitor loses the first tens of
/// milliseconds of a new stream to PulseAudio's rewinds; the pipe sink cannot rewind.)
/// With `microphone: true`, its default source is a pipe source the test speaks into (``say(_:)``).
///
/// Programs reach it through ALSA's `default` device (libasound2-plugins' pulse hook): a child
/// process run with ``environment``, a recorder in this process with ``alsaConfiguration``. Nothing
/// changes this process's environment, so tests on different daemons can run side by side.
final class AudioServer {
    static let sampleRate = 22050
    let directory: URL
    let environment: [String: String]
    /// ALSA configuration (for `Recorder.Options.alsaConfiguration`) whose `default` device is this
    /// daemon: what ``environment`` does for a child process, for a recorder in this process.
    let alsaConfiguration: String
    private let daemon: Subprocess
    private let listener: Listener
    /// The virtual microphone (a pipe source, the default source), when asked for.
    private let microphone: Microphone?

    init(microphone withMicrophone: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fifo = directory.appendingPathComponent("speaker.fifo").path
        let microphoneFIFO = directory.appendingPathComponent("mic.fifo").path
        let server = "unix:\(directory.path)/pulse/native"
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["PULSE_SERVER"] = server
        environment["HOME"] = directory.path
        self.environment = environment
        alsaConfiguration = "pcm.default { type pulse server \"\(server)\" }"

        let daemon = try Subprocess(
            "/usr/bin/pulseaudio",
            [
                "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n", "--log-target=stderr",
                "--log-level=error",
                "--load=module-native-protocol-unix",
                "--load=module-pipe-sink file=\(fifo) sink_name=speaker format=s16le rate=\(Self.sampleRate) channels=1"
                    + " use_system_clock_for_timing=yes",
            ]
                + (withMicrophone
                    ? [
                        "--load=module-pipe-source file=\(microphoneFIFO) source_name=mic format=s16le"
                            + " rate=\(Microphone.sampleRate) channels=1"
                    ] : []),
            environment: environment)
        self.daemon = daemon
        // Until every part is up, deinit would not run: a failure stops the daemon here (and its
        // exit ends the listener's reads).
        do {
            listener = try Listener(fifo: fifo, until: Date().addingTimeInterval(10))
            try Self.waitUntilReady(environment)
            if withMicrophone {
                let defaultSource = try Subprocess.run(
                    "/usr/bin/pactl", ["set-default-source", "mic"], environment: environment)
                try #require(defaultSource.status == 0, "\(defaultSource.stderr)")
                microphone = try Microphone(fifo: microphoneFIFO)
            } else {
                microphone = nil
            }
        } catch {
            daemon.send(SIGTERM)
            _ = daemon.wait()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Speaks `samples` (16 kHz) into the virtual microphone, after what is already queued.
    func say(_ samples: [Int16]) { microphone?.enqueue(samples) }

    /// Waits until everything ``say(_:)`` queued has gone into the microphone.
    func waitUntilSaid(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while (microphone?.queued ?? 0) > 0 {
            guard Date() < deadline else { throw TestFailure("the microphone did not finish speaking") }
            usleep(5_000)
        }
    }

    deinit {
        microphone?.stop()
        daemon.send(SIGTERM)
        _ = daemon.wait()
        listener.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func waitUntilReady(_ environment: [String: String]) throws {
        for _ in 0..<100 {
            if (try? Subprocess.run("/usr/bin/pactl", ["info"], environment: environment))?.status == 0 { return }
            usleep(50_000)
        }
        throw TestFailure("PulseAudio did not start")
    }

    /// The sink renders this far ahead into its FIFO (one pipe page of 22.05 kHz mono s16 is 93 ms),
    /// and PulseAudio buffers a little more: what a program played by `time` is read by this much later.
    static let sinkLatency: TimeInterval = 0.3

    /// Waits until everything played by `time` (e.g. a process's exit) has been read from the sink.
    func waitUntilHeard(through time: TimeInterval) throws {
        try listener.waitForArrivals(after: time + Self.sinkLatency)
    }

    /// A point in what the speaker has played so far.
    var now: Listener.Mark { listener.mark }

    /// What the speaker played since `mark`, with when each part arrived.
    func heard(since mark: Listener.Mark) -> Listener.Recording { listener.recording(since: mark) }
}

/// Hearing what was played: the audible part of recordings and references.
extension AudioServer {
    /// Samples at or above 1% of full scale count as audible.
    static let threshold = 0.01

    /// What `speak -o` synthesises for the same arguments.
    func synthesised(_ arguments: [String]) throws -> PCMBuffer {
        let file = directory.appendingPathComponent("reference-\(UUID().uuidString).wav")
        let result = try Speak.run(arguments + ["-o", file.path])
        try #require(result.status == 0, "\(result.stderr)")
        return try PCMBuffer(audio: Data(contentsOf: file))
    }

    /// The audible span, in seconds, of what `speak -o` synthesises for the same arguments.
    func synthesisedSpan(_ arguments: [String]) throws -> Double {
        let pcm = try synthesised(arguments)
        return Double(try #require(pcm.audibleSpan(threshold: Self.threshold)).count) / Double(pcm.sampleRate)
    }

    /// The sink passes samples through unchanged (same rate, full volume), so all of `reference`
    /// was heard when its first and its last 20 ms of sound are in the recording, sample for sample,
    /// and the audible span heard is no shorter than the one synthesised (a lost head or tail of
    /// more than 20 ms fails both ways). A scheduling gap on a loaded machine lengthens the span
    /// but loses nothing, so it does not fail.
    func expectHeardWhole(
        _ reference: PCMBuffer, in recording: Listener.Recording, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = try #require(reference.audibleSpan(threshold: Self.threshold))
        let probe = reference.sampleRate / 50
        let head = Array(reference.samples[expected.lowerBound..<expected.lowerBound + probe])
        let tail = Array(reference.samples[(expected.upperBound + 1 - probe)...expected.upperBound])
        #expect(
            recording.samples.firstRange(of: head) != nil, "the first 20 ms of speech were not heard",
            sourceLocation: sourceLocation)
        #expect(
            recording.samples.firstRange(of: tail) != nil, "the last 20 ms of speech were not heard",
            sourceLocation: sourceLocation)
        let heard = try heardSpan(recording).count
        #expect(
            heard >= expected.count - probe, "heard \(heard) samples of \(expected.count)",
            sourceLocation: sourceLocation)
    }

    func heardSpan(_ recording: Listener.Recording) throws -> ClosedRange<Int> {
        let pcm = PCMBuffer(sampleRate: AudioServer.sampleRate, samples: recording.samples)
        return try #require(pcm.audibleSpan(threshold: Self.threshold), "nothing was heard")
    }

    /// Waits until the speaker has played something audible since `mark`.
    func waitForSound(since mark: Listener.Mark, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while PCMBuffer(sampleRate: AudioServer.sampleRate, samples: heard(since: mark).samples).audibleSpan(
            threshold: Self.threshold) == nil
        {
            guard Date() < deadline else { throw TestFailure("no sound within \(timeout) s") }
            usleep(10_000)
        }
    }
}

/// Reads the pipe sink's FIFO on its own thread, keeping every sample and when it arrived.
final class Listener: Sendable {
    struct Mark { let sample: Int }
    struct Recording {
        var samples: [Int16]
        /// (index of the first sample of a read, when it was read)
        var arrivals: [(sample: Int, time: TimeInterval)]

        /// When the sample at `index` reached the speaker, on `ProcessInfo.systemUptime`'s clock.
        func time(ofSample index: Int) -> TimeInterval {
            arrivals.last { $0.sample <= index }?.time ?? arrivals.first?.time ?? 0
        }
    }

    private let state = Locked<Recording>(Recording(samples: [], arrivals: []))
    /// Signalled after every read, for ``waitForArrivals(after:timeout:)``.
    private let arrived = NSCondition()
    private let descriptor: Int32
    private let stopped = Atomic<Bool>(false)

    init(fifo: String, until deadline: Date) throws {
        var descriptor: Int32 = -1
        while descriptor < 0 {
            descriptor = open(fifo, O_RDONLY | O_NONBLOCK)
            if descriptor < 0 {
                guard Date() < deadline else { throw TestFailure("no pipe sink FIFO at \(fifo)") }
                usleep(20_000)
            }
        }
        self.descriptor = descriptor
        // The pipe's 64 KiB would hold 1.5 s that the sink renders ahead of time: keep one page.
        var buffer = [UInt8](repeating: 0, count: 65536)
        // 1031 is F_SETPIPE_SZ (Linux-only, not imported).
        while fcntl(descriptor, 1031, 4096) < 0 { _ = read(descriptor, &buffer, buffer.count) }
        _ = fcntl(descriptor, F_SETFL, 0)
        Thread.detachNewThread { [self] in readLoop() }
    }

    private func readLoop() {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var carry: UInt8?
        while !stopped.load(ordering: .relaxed) {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return }
            let time = ProcessInfo.processInfo.systemUptime
            var bytes = Array(buffer.prefix(count))
            if let first = carry {
                bytes.insert(first, at: 0)
                carry = nil
            }
            if bytes.count % 2 == 1 { carry = bytes.removeLast() }
            let samples = stride(from: 0, to: bytes.count, by: 2).map {
                Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
            }
            state.withLock { recording in
                recording.arrivals.append((recording.samples.count, time))
                recording.samples += samples
            }
            arrived.withLock { arrived.broadcast() }
        }
    }

    /// Blocks until the sink has written something read after `time` (it writes all the time,
    /// silence when nothing plays), so everything played before then has been read.
    func waitForArrivals(after time: TimeInterval, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        arrived.lock()
        defer { arrived.unlock() }
        while (state.withLock { $0.arrivals.last?.time ?? 0 }) <= time {
            guard arrived.wait(until: deadline) else { throw TestFailure("the sink wrote nothing after \(time)") }
        }
    }

    var mark: Mark { Mark(sample: state.withLock { $0.samples.count }) }

    func recording(since mark: Mark) -> Recording {
        state.withLock { recording in
            Recording(
                samples: Array(recording.samples[mark.sample...]),
                arrivals: recording.arrivals.filter { $0.sample >= mark.sample }.map {
                    ($0.sample - mark.sample, $0.time)
                })
        }
    }

    /// The loop ends at the next read, or when the daemon's exit closes the FIFO.
    func stop() { stopped.store(true, ordering: .relaxed) }
}

/// The virtual microphone: writes queued samples, else silence, into a pipe source's FIFO in real
/// time. A pipe source delivers exactly what is written to its FIFO, when it is written, so the
/// writer paces itself by the clock; stopping would stall every recorder on it.
final class Microphone: Sendable {
    static let sampleRate = 16000
    private let queue = Locked<[Int16]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let descriptor: Int32

    init(fifo: String) throws {
        // The daemon holds the FIFO open, so this open does not wait for a reader.
        descriptor = open(fifo, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(fifo): \(String(cString: strerror(errno)))") }
        Thread.detachNewThread { [self] in writeLoop() }
    }

    /// `text` as espeak-ng says it, resampled to the microphone's 16 kHz.
    static func speech(_ text: String) throws -> [Int16] {
        let synthesizer = try EspeakSynthesizer.shared()
        var resampler = Resampler(inputRate: synthesizer.sampleRate, outputRate: sampleRate)
        var samples: [Int16] = []
        try synthesizer.synthesize(text, options: SpeechOptions(voice: VoiceCatalog.builtInDefault)) {
            samples += resampler.process($0)
        }
        return samples + resampler.finish()
    }

    var queued: Int { queue.withLock { $0.count } }

    func enqueue(_ samples: [Int16]) { queue.withLock { $0 += samples } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        close(descriptor)
    }

    private func writeLoop() {
        defer { finished.signal() }
        let start = ProcessInfo.processInfo.systemUptime
        // 20 ms ahead of the clock, so the source never waits on a late wake-up.
        let lead = Self.sampleRate / 50
        var written = 0
        while !stopped.load(ordering: .relaxed) {
            let due = Int((ProcessInfo.processInfo.systemUptime - start) * Double(Self.sampleRate)) + lead
            if due > written {
                let chunk = queue.withLock { queue in
                    let taken = Array(queue.prefix(due - written))
                    queue.removeFirst(taken.count)
                    return taken + [Int16](repeating: 0, count: due - written - taken.count)
                }
                let complete = chunk.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        if count < 0 && errno == EINTR { continue }
                        // Full pipe (nobody recording): wait, but never past stop(), or deinit would hang.
                        if count < 0 && errno == EAGAIN {
                            if stopped.load(ordering: .relaxed) { return false }
                            usleep(5_000)
                            continue
                        }
                        guard count > 0 else { return false }
                        offset += count
                    }
                    return true
                }
                guard complete else { return }
                written = due
            }
            usleep(5_000)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
