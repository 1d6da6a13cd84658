import Foundation
import SpeakKit
import Synchronization

/// A private PulseAudio daemon whose default source is a virtual microphone: a pipe source fed by
/// the test, in real time, with silence whenever the test is not speaking into it.
///
/// A pipe source delivers exactly what is written to its FIFO, when it is written, so the feeder
/// paces itself by the clock; stopping would stall every recorder on it.
///
/// The recorder under test runs in this process and reaches the daemon through ALSA's `default`
/// device (libasound2-plugins' pulse hook), so `init` points this process's `PULSE_SERVER` at the
/// daemon and `deinit` restores it: suites using it must be `.serialized`. (ALSA reads its
/// configuration, and so whether `default` is pulse, on the process's first open.)
final class Microphone {
    static let sampleRate = 16000
    let directory: URL
    let environment: [String: String]
    private let daemon: pid_t
    private let feeder: Feeder
    private let previousServer: String?

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-mic-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fifo = directory.appendingPathComponent("mic.fifo").path
        let socket = "\(directory.path)/pulse/native"
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["PULSE_SERVER"] = "unix:\(socket)"
        environment["HOME"] = directory.path
        self.environment = environment

        // The socket comes last: once it accepts, the microphone is there.
        let script = directory.appendingPathComponent("mic.pa")
        try """
        load-module module-pipe-source file=\(fifo) source_name=mic format=s16le rate=\(Self.sampleRate) channels=1
        set-default-source mic
        load-module module-native-protocol-unix auth-anonymous=1

        """.write(to: script, atomically: true, encoding: .utf8)
        daemon = try Self.spawn(
            "/usr/bin/pulseaudio",
            [
                "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n", "-F", script.path,
                "--log-target=stderr", "--log-level=error",
            ],
            environment: environment, log: directory.appendingPathComponent("pulseaudio.log").path)
        do {
            try Self.waitForSocket(socket)
            feeder = try Feeder(fifo: fifo, sampleRate: Self.sampleRate)
        } catch {
            kill(daemon, SIGKILL)
            _ = Self.wait(daemon)
            throw error
        }

        previousServer = getenv("PULSE_SERVER").map { String(cString: $0) }
        setenv("PULSE_SERVER", "unix:\(socket)", 1)
    }

    deinit {
        if let previousServer { setenv("PULSE_SERVER", previousServer, 1) } else { unsetenv("PULSE_SERVER") }
        feeder.stop()
        kill(daemon, SIGTERM)
        _ = Self.wait(daemon)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the daemon with its output in a log file rather than pipes. `Subprocess` pipes are not
    /// close-on-exec, so any process another test spawns meanwhile inherits them: a `pactl` run
    /// here could then wait on its output for as long as that process lives (seen: a hung `speak`
    /// held one for minutes). So: no pipes, and readiness is a connect to the socket. (PulseAudio
    /// closes the descriptors it inherits itself.)
    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String], log: String)
        throws -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard error == 0 else { throw TestFailure("cannot start \(executable): \(String(cString: strerror(error)))") }
        return pid
    }

    private static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Waits until the daemon accepts connections on its native protocol socket.
    private static func waitForSocket(_ path: String, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            close(descriptor)
            if connected == 0 { return }
            usleep(20_000)
        }
        throw TestFailure("PulseAudio did not start: \(path)")
    }

    /// Queues `samples` (16 kHz) to be spoken into the microphone after what is already queued.
    func say(_ samples: [Int16]) { feeder.enqueue(samples) }

    /// Waits until everything queued has gone into the FIFO.
    func waitUntilSaid(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while feeder.queued > 0 {
            guard Date() < deadline else { throw TestFailure("the microphone did not finish speaking") }
            usleep(5_000)
        }
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
}

/// Writes queued samples, else silence, into the pipe source's FIFO at the sample rate.
final class Feeder: @unchecked Sendable {
    private let queue = Locked<[Int16]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let descriptor: Int32
    private let sampleRate: Int

    init(fifo: String, sampleRate: Int) throws {
        // The daemon holds the FIFO open, so this open does not wait for a reader.
        descriptor = open(fifo, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(fifo): \(String(cString: strerror(errno)))") }
        self.sampleRate = sampleRate
        Thread.detachNewThread { [self] in writeLoop() }
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
        let lead = sampleRate / 50
        var written = 0
        while !stopped.load(ordering: .relaxed) {
            let due = Int((ProcessInfo.processInfo.systemUptime - start) * Double(sampleRate)) + lead
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
