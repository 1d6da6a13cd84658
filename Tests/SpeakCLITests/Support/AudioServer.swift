import Foundation
import Synchronization

/// A private PulseAudio daemon for one test: a real-time audio server with no sound card.
///
/// Its default sink is a pipe sink paced by the system clock, so what it writes to its FIFO is
/// what a listener hears, when they hear it. (A null sink's monitor loses the first tens of
/// milliseconds of a new stream to PulseAudio's rewinds; the pipe sink cannot rewind.)
/// ALSA's `default` device reaches it through libasound2-plugins' pulse hook.
final class AudioServer {
    static let sampleRate = 22050
    let directory: URL
    let environment: [String: String]
    private let daemon: Subprocess
    private let listener: Listener

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("speak-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fifo = directory.appendingPathComponent("speaker.fifo").path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["PULSE_SERVER"] = "unix:\(directory.path)/pulse/native"
        environment["HOME"] = directory.path
        self.environment = environment

        daemon = try Subprocess("/usr/bin/pulseaudio", [
            "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n", "--log-target=stderr", "--log-level=error",
            "--load=module-native-protocol-unix",
            "--load=module-pipe-sink file=\(fifo) sink_name=speaker format=s16le rate=\(Self.sampleRate) channels=1 use_system_clock_for_timing=yes",
        ], environment: environment)
        listener = try Listener(fifo: fifo, until: Date().addingTimeInterval(10))
        try waitUntilReady()
    }

    deinit {
        daemon.send(SIGTERM)
        _ = daemon.wait()
        listener.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func waitUntilReady() throws {
        for _ in 0..<100 {
            if (try? Subprocess.run("/usr/bin/pactl", ["info"], environment: environment))?.status == 0 { return }
            usleep(50_000)
        }
        throw TestFailure("PulseAudio did not start")
    }

    /// A point in what the speaker has played so far.
    var now: Listener.Mark { listener.mark }

    /// What the speaker played since `mark`, with when each part arrived.
    func heard(since mark: Listener.Mark) -> Listener.Recording { listener.recording(since: mark) }
}

/// Reads the pipe sink's FIFO on its own thread, keeping every sample and when it arrived.
final class Listener: @unchecked Sendable {
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

    private let state = Mutex<Recording>(Recording(samples: [], arrivals: []))
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
        while fcntl(descriptor, 1031 /* F_SETPIPE_SZ */, 4096) < 0 { _ = read(descriptor, &buffer, buffer.count) }
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
            if let first = carry { bytes.insert(first, at: 0); carry = nil }
            if bytes.count % 2 == 1 { carry = bytes.removeLast() }
            let samples = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
            state.withLock { recording in
                recording.arrivals.append((recording.samples.count, time))
                recording.samples += samples
            }
        }
    }

    var mark: Mark { Mark(sample: state.withLock { $0.samples.count }) }

    func recording(since mark: Mark) -> Recording {
        state.withLock { recording in
            Recording(
                samples: Array(recording.samples[mark.sample...]),
                arrivals: recording.arrivals.filter { $0.sample >= mark.sample }.map { ($0.sample - mark.sample, $0.time) })
        }
    }

    /// The loop ends at the next read, or when the daemon's exit closes the FIFO.
    func stop() { stopped.store(true, ordering: .relaxed) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
