import Foundation
import SpeakKit

/// A child process on posix_spawn and waitpid. (Foundation's `Process.waitUntilExit` can miss a
/// child's exit when called off the main thread, as Swift Testing does.)
final class Subprocess: Sendable {
    struct Result {
        var status: Int32
        /// Killed by this signal instead of exiting.
        var signal: Int32?
        var stdout: String
        var stderr: String
        /// When the child exited, on `ProcessInfo.systemUptime`'s clock.
        var exitTime: TimeInterval
    }

    let pid: pid_t
    private static let spawning = NSLock()
    /// What the child has written so far, appended as it arrives.
    private let output = Locked((stdout: Data(), stderr: Data()))
    /// How the child exited (its wait status) and when, once reaped: from then on its ID may be
    /// another process's, so it is signalled only under this lock while it is `nil`.
    private let reaped = Locked<(status: Int32, time: TimeInterval)?>(nil)
    private let readers = DispatchGroup()

    /// The environment a child gets: the test's, or `environment`, with no local socket unless it
    /// names one (`SPEAK_SOCKET`). Otherwise every `speak serve` a test starts would listen on, and
    /// every `speak -v joe` hand its text to, the one `$XDG_RUNTIME_DIR/speak/serve.sock`.
    static func isolated(_ environment: [String: String]?) -> [String: String] {
        var variables = environment ?? ProcessInfo.processInfo.environment
        if variables["SPEAK_SOCKET"] == nil { variables["SPEAK_SOCKET"] = "" }
        return variables
    }

    /// Starts `executable arguments…`; `input` is written to its standard input (else /dev/null).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil) throws {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Pipes are made close-on-exec and the child spawned under one lock, so no other test's
        // child can start in between and inherit them.
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        let pipes = (stdin: Self.pipe(), stdout: Self.pipe(), stderr: Self.pipe())
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, pipes.stdin.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, pipes.stdout.write, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes.stderr.write, 2)
        for descriptor in [
            pipes.stdin.read, pipes.stdin.write, pipes.stdout.read, pipes.stdout.write, pipes.stderr.read,
            pipes.stderr.write,
        ] {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = Self.isolated(environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        // The child starts with no signals blocked and default handlers, as from a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
        for end in [pipes.stdin.read, pipes.stdout.write, pipes.stderr.write] { close(end) }
        guard error == 0 else {
            for end in [pipes.stdin.write, pipes.stdout.read, pipes.stderr.read] { close(end) }
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(error)))")
        }
        self.pid = pid
        collect(pipes.stdout.read) { [output] piece in output.withLock { $0.stdout += piece } }
        collect(pipes.stderr.read) { [output] piece in output.withLock { $0.stderr += piece } }
        let stdin = pipes.stdin.write
        Thread.detachNewThread {
            if let input {
                input.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(stdin, bytes.baseAddress! + offset, bytes.count - offset)
                        if written <= 0 { break }
                        offset += written
                    }
                }
            }
            close(stdin)
        }
    }

    /// Close-on-exec: a process another test starts meanwhile must not inherit this one's pipes
    /// (it would hold them open, and a reader waiting for end-of-file would wait for it).
    private static func pipe() -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        precondition(Glibc.pipe(&descriptors) == 0)
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// Reads `descriptor` until end of file, handing each piece to `append` as it comes, so a test
    /// can read what a running child has printed (``stdoutSoFar``).
    private func collect(_ descriptor: Int32, append: @escaping @Sendable (Data) -> Void) {
        readers.enter()
        Thread.detachNewThread { [readers] in
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                let piece = Data(buffer[..<count])
                append(piece)
            }
            readers.leave()
        }
    }

    /// What the child has written to its standard output so far.
    var stdoutSoFar: String {
        output.withLock { String(decoding: $0.stdout, as: UTF8.self) }
    }

    /// What the child has written to its standard error so far.
    var stderrSoFar: String {
        output.withLock { String(decoding: $0.stderr, as: UTF8.self) }
    }

    /// Sends `signal`, unless the child has been reaped already.
    func send(_ signal: Int32) {
        reaped.withLock { if $0 == nil { _ = kill(pid, signal) } }
    }

    /// Waits for the child to exit and reaps it; called again, returns the same.
    func wait() -> Result {
        // Until it exits, without reaping it, so `send` can still signal it meanwhile.
        var info = siginfo_t()
        while reaped.withLock({ $0 == nil }) && waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0
            && errno == EINTR
        {}
        let (status, exitTime) = reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = (status, ProcessInfo.processInfo.systemUptime)
            return reaped!
        }
        readers.wait()
        let signaled = status & 0x7f != 0
        return Result(
            status: signaled ? -1 : (status >> 8) & 0xff, signal: signaled ? status & 0x7f : nil,
            stdout: stdoutSoFar, stderr: stderrSoFar,
            exitTime: exitTime)
    }

    /// Stops the child as a user would: SIGTERM, so it can remove what it made, then SIGKILL if
    /// it is still running after `grace` seconds. Returns how it exited (at once if it was reaped).
    func terminate(grace: TimeInterval = 10) -> Result {
        send(SIGTERM)
        let deadline = ProcessInfo.processInfo.systemUptime + grace
        while !hasExited && ProcessInfo.processInfo.systemUptime < deadline { usleep(10_000) }
        send(SIGKILL)
        return wait()
    }

    /// Whether the child has exited, without reaping it.
    var hasExited: Bool {
        reaped.withLock { reaped in
            guard reaped == nil else { return true }
            // With WNOHANG and the child still running, waitid returns 0 and leaves the ID zero.
            var info = siginfo_t()
            guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno != EINTR }
            return info._sifields._sigchld.si_pid != 0
        }
    }

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> Result {
        try Subprocess(executable, arguments, environment: environment, input: input).wait()
    }
}

/// The built `speak` binary, run as a user runs it.
enum Speak {
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("speak").path

    static func start(_ arguments: [String], environment: [String: String]? = nil, input: Data? = nil) throws
        -> Subprocess
    {
        try Subprocess(executable, arguments, environment: environment, input: input)
    }

    static func run(_ arguments: [String], environment: [String: String]? = nil, input: Data? = nil) throws
        -> Subprocess.Result
    {
        try start(arguments, environment: environment, input: input).wait()
    }
}

/// Polls `condition` every 20 ms until it holds, or fails after `seconds`.
func poll(_ what: String, seconds: Double = 30, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw TestFailure("timed out waiting for \(what)")
}
