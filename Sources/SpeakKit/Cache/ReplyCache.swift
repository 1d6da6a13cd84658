import FoundationEssentials
import Glibc

/// The address of one cached reply: SHA-256 over every field that changes the bytes. Each field is
/// length-prefixed before hashing, so ("a", "bc") and ("ab", "c") cannot meet at the same key.
public struct ReplyKey: Hashable, Sendable {
    /// 64 lowercase hex digits.
    public let digest: String

    public init(engine: String, voice: String, rate: Int, pitch: Int, format: String, text: String) {
        let fields = Fields(engine: engine, voice: voice, rate: rate, pitch: pitch, format: format, text: text)
        if let known = Self.recent.withLock({ $0[fields] }) {
            digest = known
            return
        }
        // The leading tag retires every old entry if this encoding ever changes.
        var bytes: [UInt8] = []
        for field in ["speak-reply-1", engine, voice, String(rate), String(pitch), format, text] {
            bytes += "\(field.utf8.count):".utf8
            bytes += field.utf8
        }
        digest = SHA256.hex(bytes)
        Self.recent.withLock { recent in
            if recent.count >= Self.recentLimit { recent = [:] }
            recent[fields] = digest
        }
    }

    /// The fields a key is made of, to remember recent keys by: a repeated request (a cache hit)
    /// costs one dictionary lookup instead of a SHA-256. Hashed and compared as UTF-8 bytes, and
    /// hashed once, before the lock is taken: as `String`s they would be Unicode-normalised on
    /// every hash and comparison, so a voice or text beyond ASCII (Hausa's ɗ, ƙ) would cost more,
    /// all of it under the shared lock, and two spellings of one letter would share a digest.
    private struct Fields: Hashable {
        var engine, voice: String
        var rate, pitch: Int
        var format, text: String
        let hash: Int

        init(engine: String, voice: String, rate: Int, pitch: Int, format: String, text: String) {
            (self.engine, self.voice, self.rate, self.pitch, self.format, self.text) =
                (engine, voice, rate, pitch, format, text)
            var hasher = Hasher()
            hasher.combine(rate)
            hasher.combine(pitch)
            Self.combine(engine, into: &hasher)
            Self.combine(voice, into: &hasher)
            Self.combine(format, into: &hasher)
            Self.combine(text, into: &hasher)
            hash = hasher.finalize()
        }

        private static func combine(_ field: String, into hasher: inout Hasher) {
            var field = field
            field.withUTF8 {
                hasher.combine($0.count)
                hasher.combine(bytes: UnsafeRawBufferPointer($0))
            }
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (a: Fields, b: Fields) -> Bool {
            a.hash == b.hash && a.rate == b.rate && a.pitch == b.pitch && sameBytes(a.engine, b.engine)
                && sameBytes(a.voice, b.voice) && sameBytes(a.format, b.format) && sameBytes(a.text, b.text)
        }

        private static func sameBytes(_ a: String, _ b: String) -> Bool {
            var (a, b) = (a, b)
            return a.withUTF8 { a in
                b.withUTF8 { b in
                    // The same storage (a voice's identity) needs no comparing.
                    a.count == b.count
                        && (a.isEmpty || a.baseAddress == b.baseAddress
                            || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
                }
            }
        }
    }
    private static let recent = Locked<[Fields: String]>([:])
    private static let recentLimit = 4096
}

/// A file operation on the cache directory failed: the POSIX call, its path and `errno`.
public struct ReplyCacheError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let path: String
    public let code: Int32
    public var description: String { "\(function) \(path): \(String(cString: strerror(code)))" }
}

/// Finished replies on disk, addressed by `ReplyKey`, bounded in bytes, least recently used out first.
///
/// Each entry file is a 48-byte header (`SPKREPL1`, the body's length as a big-endian UInt64, the
/// body's SHA-256) and the body. An entry read from disk is served only if its length and digest
/// match; a truncated, overwritten or empty one is deleted and counts as a miss, so the reply is
/// made again. Replies held in memory were checked when they were read.
///
/// The CLI and the server share one directory, so the directory is the truth, not this object:
/// an entry appears only by `rename` of a complete temp file, recency is each file's mtime, and
/// `totalBytes` is this process's estimate, made exact again whenever eviction rescans. Within one
/// process the bound holds after every store; another process's stores are counted at the next rescan.
public final class ReplyCache: Sendable {
    public let directory: URL
    /// `directory.path`, kept: entry paths are built on every lookup.
    private let directoryPath: String
    public let maximumBytes: Int
    private struct State {
        var estimatedBytes = 0
        /// The most recently served replies, in memory: a hit costs no file read. Keyed by digest.
        var hot: [String: (data: Data, lastUsed: Int64, lastTouched: Int64)] = [:]
        var hotBytes = 0

        /// Keeps a reply in memory, dropping the least recently used past `hotLimit`.
        mutating func hold(_ data: Data, digest: String, now: Int64) {
            guard data.count <= ReplyCache.hotLimit / 4 else { return }
            if let previous = hot.updateValue((data, now, now), forKey: digest) { hotBytes -= previous.data.count }
            hotBytes += data.count
            while hotBytes > ReplyCache.hotLimit, let oldest = hot.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                hot[oldest.key] = nil
                hotBytes -= oldest.value.data.count
            }
        }
    }
    private let state = Locked(State())
    static let hotLimit = 16 << 20
    /// A hit held in memory refreshes its file's mtime (recency for every process) this often at most.
    static let touchInterval: Int64 = 10_000_000_000

    /// The cache the command line and a local `speak serve` share: `$XDG_CACHE_HOME/speak`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"] ?? ((environment["HOME"] ?? "/tmp") + "/.cache")
        return URL(fileURLWithPath: base + "/speak")
    }
    public static let defaultMaximumBytes = 256 << 20

    static let entrySuffix = ".reply"
    /// Bytes before the body in an entry file: magic, length, SHA-256.
    public static let headerBytes = 48
    static let magic = Array("SPKREPL1".utf8)
    static let tempPrefix = ".tmp-"
    /// A temp file untouched this long belongs to a writer that died: live writers touch it with every chunk.
    static let staleTempNanoseconds: Int64 = 60_000_000_000

    /// Creates the directory if needed, removes dead writers' temp files, and counts what is there.
    public init(directory: URL, maximumBytes: Int) throws {
        self.directory = directory
        directoryPath = directory.path
        self.maximumBytes = maximumBytes
        try FileSystem.makeDirectories(directory.path)
        let cutoff = Self.now() - Self.staleTempNanoseconds
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix(Self.tempPrefix) {
            let path = directory.appendingPathComponent(name).path
            if let status = Self.status(of: path), Self.nanoseconds(status.st_mtim) < cutoff { unlink(path) }
        }
        state.withLock { evictLeastRecentlyUsed(&$0, keeping: nil) }
    }

    public var totalBytes: Int { state.withLock { $0.estimatedBytes } }

    /// The stored bytes, or nil; a hit becomes the most recently used entry for every process.
    public func data(for key: ReplyKey) -> Data? { heldData(for: key) ?? storedData(for: key) }

    /// The reply, if it is held in memory: no file is read.
    public func heldData(for key: ReplyKey) -> Data? {
        let now = Self.now()
        let (held, touch): (Data?, Bool) = state.withLock { state in
            // Updated in place: one hash of the digest per hit.
            guard let index = state.hot.index(forKey: key.digest) else { return (nil, false) }
            state.hot.values[index].lastUsed = now
            let touch = now - state.hot.values[index].lastTouched > Self.touchInterval
            if touch { state.hot.values[index].lastTouched = now }
            return (state.hot.values[index].data, touch)
        }
        if held != nil, touch { Self.touch(path(for: key)) }
        return held
    }

    /// Whether a file holds the reply (not yet read or checked).
    public func hasStoredEntry(for key: ReplyKey) -> Bool { access(path(for: key), F_OK) == 0 }

    /// The reply read from its file and checked, then held in memory if it is small enough.
    public func storedData(for key: ReplyKey) -> Data? {
        let now = Self.now()
        let path = path(for: key)
        // An open file reads whole even if another process evicts or replaces it meanwhile.
        guard let file = FileManager.default.contents(atPath: path) else { return nil }
        guard let data = Self.verifiedBody(of: file) else {
            // Cut short, overwritten or empty: never served; the reply is made again.
            unlink(path)
            state.withLock { $0.estimatedBytes -= max(0, file.count - Self.headerBytes) }
            return nil
        }
        Self.touch(path)
        state.withLock { $0.hold(data, digest: key.digest, now: now) }
        return data
    }

    /// The header an entry with `body` starts with.
    static func header(for body: UnsafeRawBufferPointer) -> [UInt8] {
        var header = magic
        withUnsafeBytes(of: UInt64(body.count).bigEndian) { header += $0 }
        return header + SHA256.digest(body)
    }

    /// The body of a whole entry file, if its header is ours and its length and digest match.
    static func verifiedBody(of file: Data) -> Data? {
        guard file.count >= headerBytes, file.prefix(magic.count).elementsEqual(magic) else { return nil }
        let start = file.startIndex
        let length = file[(start + 8)..<(start + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length == UInt64(file.count - headerBytes) else { return nil }
        let body = file[(start + headerBytes)...]
        guard SHA256.digest(body).elementsEqual(file[(start + 16)..<(start + headerBytes)]) else { return nil }
        return Data(body)
    }

    /// The reply an entry file holds, checked; for tools and tests that look into the directory.
    public static func storedReply(at url: URL) throws -> Data {
        guard let body = verifiedBody(of: try Data(contentsOf: url)) else {
            throw ReplyCacheError(function: "verify", path: url.path, code: EBADMSG)
        }
        return body
    }

    /// Writes `body` to `url` as an entry file (for tools and tests; the cache itself writes
    /// through ``Entry``).
    public static func writeEntry(_ body: Data, to url: URL) throws {
        try (Data(body.withUnsafeBytes { header(for: $0) }) + body).write(to: url)
    }

    public func contains(_ key: ReplyKey) -> Bool { FileManager.default.fileExists(atPath: path(for: key)) }

    /// Stores `data` whole, then evicts to the bound. A reply larger than the bound is not kept.
    public func store(_ data: Data, for key: ReplyKey) throws {
        let entry = try beginEntry(for: key)
        try entry.append(data)
        try entry.commit()
    }

    /// Starts a reply that is written as it is produced, e.g. MP3 chunks while synthesis runs.
    public func beginEntry(for key: ReplyKey) throws -> Entry { try Entry(cache: self, key: key) }

    func path(for key: ReplyKey) -> String { directoryPath + "/" + key.digest + Self.entrySuffix }

    /// Renames a finished temp file into place, or drops it when it alone would exceed the bound.
    fileprivate func moveIntoPlace(_ tempPath: String, bytes: Int, key: ReplyKey) throws {
        guard bytes <= maximumBytes else {
            unlink(tempPath)
            return
        }
        let finalPath = path(for: key)
        // Stamped before the rename, so the entry never appears with a coarse kernel mtime.
        Self.touch(tempPath)
        try state.withLock { (state) throws(ReplyCacheError) in
            let replaced = Self.status(of: finalPath).map { Self.bodyBytes($0) } ?? 0
            guard rename(tempPath, finalPath) == 0 else {
                throw ReplyCacheError(function: "rename", path: finalPath, code: errno)
            }
            state.estimatedBytes += bytes - replaced
            if state.estimatedBytes > maximumBytes { evictLeastRecentlyUsed(&state, keeping: finalPath) }
        }
    }

    /// Rescans the directory (other processes add, touch and evict too) and deletes the least
    /// recently used entries until the total fits. Called with the state's lock held.
    private func evictLeastRecentlyUsed(_ state: inout State, keeping kept: String?) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let entries = names.filter { $0.hasSuffix(Self.entrySuffix) && !$0.hasPrefix(".") }
            .compactMap { name -> (lastUsed: Int64, path: String, bytes: Int)? in
                let path = directory.appendingPathComponent(name).path
                guard let status = Self.status(of: path) else { return nil }
                return (Self.nanoseconds(status.st_mtim), path, Self.bodyBytes(status))
            }
            .sorted { ($0.lastUsed, $0.path) < ($1.lastUsed, $1.path) }
        state.estimatedBytes = entries.reduce(0) { $0 + $1.bytes }
        for entry in entries where state.estimatedBytes > maximumBytes && entry.path != kept {
            // Already gone means another process evicted it: either way it no longer counts.
            unlink(entry.path)
            state.estimatedBytes -= entry.bytes
            let digest = String(entry.path.split(separator: "/").last?.dropLast(Self.entrySuffix.count) ?? "")
            if let evicted = state.hot.removeValue(forKey: digest) { state.hotBytes -= evicted.data.count }
        }
    }

    private static func status(of path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    /// What an entry counts against the bound: its body.
    private static func bodyBytes(_ status: stat) -> Int { max(0, Int(status.st_size) - headerBytes) }

    private static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return nanoseconds(time)
    }

    /// Marks a file used now, to the nanosecond: the kernel's own stamps move by clock ticks, too
    /// coarse to order replies stored one after another.
    private static func touch(_ path: String) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        // An exact time needs ownership; a process of another user falls back to the kernel's "now".
        if utimensat(AT_FDCWD, path, [time, time], 0) != 0 { utimensat(AT_FDCWD, path, nil, 0) }
    }

    /// A reply being written. Nothing is visible under its key until `commit`; an entry abandoned,
    /// dropped, or cut short by a killed process leaves only a temp file, which `abandon`, `deinit`
    /// or the next `ReplyCache.init` removes.
    public final class Entry {
        private let cache: ReplyCache
        private let key: ReplyKey
        private let tempPath: String
        private var descriptor: Int32 = -1
        private var bytes = 0

        fileprivate init(cache: ReplyCache, key: ReplyKey) throws {
            self.cache = cache
            self.key = key
            tempPath =
                cache.directory.appendingPathComponent("\(ReplyCache.tempPrefix)\(key.digest)-\(UUID().uuidString)")
                .path
            do {
                descriptor = try SystemCall.retrying("open") {
                    open(tempPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                }
                // The header is written at commit, once the body's digest is known.
                try write([UInt8](repeating: 0, count: ReplyCache.headerBytes), at: 0)
            } catch {
                abandon()
                throw Self.failure(error, tempPath)
            }
        }

        private static func failure(_ error: any Error, _ path: String) -> any Error {
            guard let error = error as? SystemCallError else { return error }
            return ReplyCacheError(function: error.function, path: path, code: error.code)
        }

        private func write(_ bytes: [UInt8], at offset: Int) throws {
            try bytes.withUnsafeBytes { try write($0, at: offset) }
        }

        private func write(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(SystemCallError) {
            try SystemCall.writeAll("write", buffer) { pointer, count, done in
                pwrite(descriptor, pointer, count, off_t(offset + done))
            }
        }

        public func append(_ chunk: Data) throws {
            guard descriptor >= 0 else { throw ReplyCacheError(function: "append", path: tempPath, code: EBADF) }
            let offset = ReplyCache.headerBytes + bytes
            bytes += chunk.count
            // Past the bound the reply will be dropped at commit: stop filling the disk with it.
            guard bytes <= cache.maximumBytes else { return }
            do { try chunk.withUnsafeBytes { try write($0, at: offset) } } catch { throw Self.failure(error, tempPath) }
        }

        /// Stamps the header (length and digest of what was written), makes the reply visible
        /// under its key, then evicts to the bound.
        public func commit() throws {
            guard descriptor >= 0 else { throw ReplyCacheError(function: "commit", path: tempPath, code: EBADF) }
            let descriptor = self.descriptor
            self.descriptor = -1
            defer { close(descriptor) }
            guard bytes <= cache.maximumBytes else {
                unlink(tempPath)
                return
            }
            do {
                var body = [UInt8](repeating: 0, count: bytes)
                let read = try body.withUnsafeMutableBytes { buffer in
                    try SystemCall.readFully("pread", into: buffer) { pointer, count in
                        pread(descriptor, pointer, count, off_t(ReplyCache.headerBytes + bytes - count))
                    }
                }
                guard read == bytes else { throw SystemCallError("pread", code: EIO) }
                let header = body.withUnsafeBytes { ReplyCache.header(for: $0) }
                try header.withUnsafeBytes { buffer in
                    try SystemCall.writeAll("write", buffer) { pointer, count, done in
                        pwrite(descriptor, pointer, count, off_t(done))
                    }
                }
                try cache.moveIntoPlace(tempPath, bytes: bytes, key: key)
            } catch {
                unlink(tempPath)
                throw Self.failure(error, tempPath)
            }
        }

        /// Deletes what was written; nothing under the key changes.
        public func abandon() {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
            unlink(tempPath)
        }

        deinit { abandon() }
    }
}
