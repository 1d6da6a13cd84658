import Dispatch
import FoundationEssentials
import Glibc

/// A failure of synthesis in a worker process: the worker's own message (an unknown espeak-ng
/// voice, say), or what happened to the worker (it died, the pool is shut down).
public struct WorkerError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The worker process died (crashed, was killed) rather than refused the request: another
    /// worker may well make the same reply.
    public let workerDied: Bool

    public init(_ message: String, workerDied: Bool = false) {
        self.message = message
        self.workerDied = workerDied
    }

    init(_ error: SystemCallError) { self.init("\(error.function) failed: \(error.message)") }

    public var description: String { message }
}

/// The server side of ``SynthesisWorker``: a fixed number of `speak worker` processes, each
/// serving one reply at a time, so synthesis uses every core.
///
/// Each worker has a thread waiting for its exit, so one that dies while idle is reaped and
/// replaced at once, never handed a request. A request whose worker dies before the first PCM
/// reached the caller is tried again on another worker.
///
/// Children are started with posix_spawn rather than Foundation's `Process`, whose
/// `waitUntilExit` can hang off the main thread. glibc has no `POSIX_SPAWN_CLOEXEC_DEFAULT`, so a
/// child inherits every descriptor not marked close-on-exec: the pool marks its own, and the
/// server must open its listening and client sockets with `SOCK_CLOEXEC`, or a worker would hold
/// them open.
public final class WorkerPool: Synthesizer, @unchecked Sendable {  // guarded by `condition`
    /// One worker process. `exited` is set before the process is reaped, so a signal sent while it
    /// is clear (under its lock) cannot reach a recycled process ID.
    private final class Worker: Sendable {
        let pid: pid_t
        /// The parent's end of a socket pair: the child's standard input and output. A socket,
        /// not pipes, so writes can pass `MSG_NOSIGNAL`: a dead worker gives EPIPE, not a SIGPIPE
        /// that would kill the server.
        let socket: Int32
        let exited = Locked(false)
        let reaped = DispatchSemaphore(value: 0)

        init(pid: pid_t, socket: Int32) {
            self.pid = pid
            self.socket = socket
        }
    }

    private let executable: URL
    private let arguments: [String]
    // Guards everything below.
    private let condition = ThreadCondition()
    private var idle: [Worker] = []
    /// Workers started and not yet stopped, idle or busy.
    private var running = 0
    private var isShutDown = false
    /// Workers that died and were replaced, for tests and logs.
    private(set) var replacedCount = 0

    public init(executable: URL, arguments: [String] = ["worker"], size: Int) throws {
        precondition(size > 0, "a worker pool needs at least one worker")
        self.executable = executable
        self.arguments = arguments
        var started: [Worker] = []
        do {
            for _ in 0..<size { started.append(try spawn()) }
        } catch {
            for worker in started { retire(worker, kill: true) }
            throw error
        }
        condition.withLock {
            idle = started
            running = size
        }
    }

    deinit { shutdown() }

    /// The workers run espeak-ng.
    public var features: SynthesisFeatures { [.ssml, .rate, .pitch, .volume, .streaming] }
    public func kind(of voice: Voice) -> String { "espeak-ng" }

    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?, onChunk: (PCMChunk) throws -> Void
    ) throws {
        try synthesize(SynthesisRequest(text: text, options: options), onChunk: onChunk)
    }

    /// Synthesises `request` in the next free worker, handing its PCM to `onChunk` piece by piece
    /// as the worker produces it. Blocks the calling thread for the reply, and first until a
    /// worker is free if all are busy.
    ///
    /// A worker that dies before any PCM was handed on is replaced and the request tried on
    /// another, up to the pool's size plus one times. Throws ``WorkerError`` when the worker
    /// reports a failure or dies mid-reply, and rethrows what `onChunk` throws; either way the
    /// worker is ready, or replaced, for the next request.
    public func synthesize(_ request: SynthesisRequest, onChunk: (PCMChunk) throws -> Void) throws {
        let line = try request.line()
        let attempts = condition.withLock { running } + 1
        for attempt in 1...attempts {
            do {
                return try synthesize(line, onChunk: onChunk)
            } catch let died as WorkerDied where !died.delivered && attempt < attempts {
                continue
            } catch let died as WorkerDied {
                throw died.error
            }
        }
    }

    /// A worker ended mid-request; `delivered` if some of its PCM had already been handed on.
    private struct WorkerDied: Error {
        let error: WorkerError
        let delivered: Bool
    }

    private func synthesize(_ line: Data, onChunk: (PCMChunk) throws -> Void) throws {
        let worker = try checkOut()
        var readyForNext = false
        var delivered = false
        defer { checkIn(worker, replace: !readyForNext) }
        do {
            try send(line, to: worker)
            // If the consumer throws (its client went away), the rest of this reply is still
            // coming; the worker is killed and replaced rather than drained, as draining a long
            // text would hold a core for seconds to produce audio nobody hears.
            try WorkerFrame.receiveReply(from: worker.socket) { chunk in
                delivered = true
                try onChunk(chunk)
            }
            readyForNext = true
        } catch let failure as WorkerFrame.Failure {
            readyForNext = true
            throw WorkerError(failure.message)
        } catch let malformed as WorkerFrame.Malformed {
            throw WorkerError("synthesis worker \(worker.pid) \(malformed)")
        } catch let error as SystemCallError {
            throw WorkerDied(error: died(worker, error), delivered: delivered)
        }
    }

    /// Stops every worker: idle ones now, busy ones as their replies end. Waiting and later
    /// requests fail with ``WorkerError``.
    public func shutdown() {
        condition.lock()
        isShutDown = true
        let stopping = idle
        idle = []
        running -= stopping.count
        condition.broadcast()
        condition.unlock()
        for worker in stopping { retire(worker, kill: false) }
    }

    /// The idle workers' process IDs, for tests.
    var idleProcessIDs: [pid_t] { condition.withLock { idle.map(\.pid) } }

    /// Waits until at least `count` workers have been replaced, or `seconds` pass; for tests.
    func waitForReplacements(_ count: Int, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while replacedCount < count { guard condition.wait(until: deadline) else { return replacedCount >= count } }
        return true
    }

    private func checkOut() throws -> Worker {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty && running > 0 && !isShutDown { condition.wait() }
        guard !isShutDown else { throw WorkerError("the synthesis worker pool is shut down") }
        guard let worker = idle.popLast() else {
            throw WorkerError("no synthesis worker is running: none could be started")
        }
        return worker
    }

    private func checkIn(_ worker: Worker, replace: Bool) {
        guard replace else {
            condition.lock()
            if !isShutDown && !worker.exited.withLock({ $0 }) {
                idle.append(worker)
                condition.signal()
                condition.unlock()
                return
            }
            condition.unlock()
            return replaced(worker, kill: false)
        }
        replaced(worker, kill: true)
    }

    /// Stops `worker` and puts a fresh one in its place (none after shutdown).
    private func replaced(_ worker: Worker, kill: Bool) {
        retire(worker, kill: kill)
        replenish()
    }

    /// Starts a worker for one that is gone; after shutdown, counts one fewer instead.
    private func replenish() {
        let fresh = condition.withLock { isShutDown } ? nil : try? spawn()
        condition.lock()
        if let fresh, !isShutDown {
            replacedCount += 1
            idle.append(fresh)
            condition.broadcast()
            condition.unlock()
            return
        }
        // One worker fewer: waiters must see it, in case it was the last.
        running -= 1
        condition.broadcast()
        condition.unlock()
        if let fresh { retire(fresh, kill: false) }
    }

    /// Closing the socket ends the worker's input, so it exits; `kill` is for one mid-reply.
    /// Returns once the worker has been reaped.
    private func retire(_ worker: Worker, kill: Bool) {
        if kill { worker.exited.withLock { if !$0 { _ = Glibc.kill(worker.pid, SIGKILL) } } }
        close(worker.socket)
        worker.reaped.wait()
    }

    /// Waits for `worker` to exit (without reaping it, so its ID is not reused meanwhile), marks it
    /// exited, replaces it if it was idle, then reaps it.
    private func watch(_ worker: Worker) {
        var info = siginfo_t()
        _ = try? SystemCall.retrying("waitid") { waitid(P_PID, id_t(worker.pid), &info, WEXITED | WNOWAIT) }
        let wasIdle = condition.withLock { () -> Bool in
            worker.exited.withLock { $0 = true }
            guard let index = idle.firstIndex(where: { $0 === worker }) else { return false }
            idle.remove(at: index)
            return true
        }
        _ = try? SystemCall.waitForExit(worker.pid)
        worker.reaped.signal()
        // Busy workers are replaced by their request's check-in.
        if wasIdle {
            close(worker.socket)
            startDetachedThread { [self] in replenish() }
        }
    }

    private func spawn() throws -> Worker {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw WorkerError(SystemCallError("socketpair"))
        }
        let (parentEnd, childEnd) = (ends[0], ends[1])
        defer { close(childEnd) }

        // dup2 onto 0 and 1 clears close-on-exec on the copies only.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childEnd, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, childEnd, STDOUT_FILENO)

        // The server may block or catch signals; the worker starts clean. Its own process group
        // keeps a terminal's Ctrl-C for the server, which then shuts the pool down; a worker
        // whose server dies anyway exits when its input ends.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        guard code == 0 else {
            close(parentEnd)
            throw WorkerError("cannot start \(executable.path): \(String(cString: strerror(code)))")
        }
        let worker = Worker(pid: pid, socket: parentEnd)
        startDetachedThread { [self] in watch(worker) }
        return worker
    }

    private func send(_ data: Data, to worker: Worker) throws {
        try data.withUnsafeBytes { bytes in
            try SystemCall.writeAll("send", bytes) { pointer, count, _ in
                Glibc.send(worker.socket, pointer, count, Int32(MSG_NOSIGNAL))
            }
        }
    }

    private func died(_ worker: Worker, _ error: SystemCallError) -> WorkerError {
        WorkerError(
            "synthesis worker \(worker.pid) has quit (crashed or was killed: \(error)); it is being replaced",
            workerDied: true)
    }
}
