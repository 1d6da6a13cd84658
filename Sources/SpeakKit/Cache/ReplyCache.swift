import Foundation

/// The address of one cached reply: SHA-256 over every field that changes the bytes. Each field is
/// length-prefixed before hashing, so ("a", "bc") and ("ab", "c") cannot meet at the same key.
public struct ReplyKey: Hashable, Sendable {
    /// 64 lowercase hex digits.
    public let digest: String

    public init(engine: String, voice: String, rate: Int, pitch: Int, format: String, text: String) {
        // The leading tag retires every old entry if this encoding ever changes.
        var bytes: [UInt8] = []
        for field in ["speak-reply-1", engine, voice, String(rate), String(pitch), format, text] {
            bytes += "\(field.utf8.count):".utf8
            bytes += field.utf8
        }
        digest = SHA256.hex(bytes)
    }
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
/// The CLI and the server share one directory, so the directory is the truth, not this object:
/// an entry appears only by `rename` of a complete temp file, recency is each file's mtime, and
/// `totalBytes` is this process's estimate, made exact again whenever eviction rescans. Within one
/// process the bound holds after every store; another process's stores are counted at the next rescan.
public final class ReplyCache: @unchecked Sendable {
    public let directory: URL
    /// `directory.path`, kept: entry paths are built on every lookup.
    private let directoryPath: String
    public let maximumBytes: Int
    private let lock = NSLock()
    private var estimatedBytes = 0  // guarded by `lock`
    /// The most recently served replies, in memory: a hit costs no file read. Keyed by digest.
    private var hot: [String: (data: Data, lastUsed: Int64, lastTouched: Int64)] = [:]  // guarded by `lock`
    private var hotBytes = 0  // guarded by `lock`
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
    static let tempPrefix = ".tmp-"
    /// A temp file untouched this long belongs to a writer that died: live writers touch it with every chunk.
    static let staleTempNanoseconds: Int64 = 60_000_000_000

    /// Creates the directory if needed, removes dead writers' temp files, and counts what is there.
    public init(directory: URL, maximumBytes: Int) throws {
        self.directory = directory
        directoryPath = directory.path
        self.maximumBytes = maximumBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cutoff = Self.now() - Self.staleTempNanoseconds
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(Self.tempPrefix) {
            let path = directory.appendingPathComponent(name).path
            if let status = Self.status(of: path), Self.nanoseconds(status.st_mtim) < cutoff { unlink(path) }
        }
        lock.withLock { evictLeastRecentlyUsed(keeping: nil) }
    }

    public var totalBytes: Int { lock.withLock { estimatedBytes } }

    /// The stored bytes, or nil; a hit becomes the most recently used entry for every process.
    public func data(for key: ReplyKey) -> Data? {
        let path = path(for: key)
        let now = Self.now()
        let (held, touch): (Data?, Bool) = lock.withLock {
            guard var entry = hot[key.digest] else { return (nil, false) }
            entry.lastUsed = now
            let touch = now - entry.lastTouched > Self.touchInterval
            if touch { entry.lastTouched = now }
            hot[key.digest] = entry
            return (entry.data, touch)
        }
        if let held {
            if touch { Self.touch(path) }
            return held
        }
        // An open file reads whole even if another process evicts or replaces it meanwhile.
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        Self.touch(path)
        lock.withLock { hold(data, digest: key.digest, now: now) }
        return data
    }

    /// Keeps a reply in memory, dropping the least recently used past `hotLimit`. Under `lock`.
    private func hold(_ data: Data, digest: String, now: Int64) {
        guard data.count <= Self.hotLimit / 4 else { return }
        if let previous = hot.updateValue((data, now, now), forKey: digest) { hotBytes -= previous.data.count }
        hotBytes += data.count
        while hotBytes > Self.hotLimit, let oldest = hot.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            hot[oldest.key] = nil
            hotBytes -= oldest.value.data.count
        }
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
        guard bytes <= maximumBytes else { unlink(tempPath); return }
        let finalPath = path(for: key)
        // Stamped before the rename, so the entry never appears with a coarse kernel mtime.
        Self.touch(tempPath)
        try lock.withLock {
            let replaced = Self.status(of: finalPath).map { Int($0.st_size) } ?? 0
            guard rename(tempPath, finalPath) == 0 else { throw ReplyCacheError(function: "rename", path: finalPath, code: errno) }
            estimatedBytes += bytes - replaced
            if estimatedBytes > maximumBytes { evictLeastRecentlyUsed(keeping: finalPath) }
        }
    }

    /// Rescans the directory (other processes add, touch and evict too) and deletes the least
    /// recently used entries until the total fits. Called with `lock` held.
    private func evictLeastRecentlyUsed(keeping kept: String?) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let entries = names.filter { $0.hasSuffix(Self.entrySuffix) && !$0.hasPrefix(".") }
            .compactMap { name -> (lastUsed: Int64, path: String, bytes: Int)? in
                let path = directory.appendingPathComponent(name).path
                guard let status = Self.status(of: path) else { return nil }
                return (Self.nanoseconds(status.st_mtim), path, Int(status.st_size))
            }
            .sorted { ($0.lastUsed, $0.path) < ($1.lastUsed, $1.path) }
        estimatedBytes = entries.reduce(0) { $0 + $1.bytes }
        for entry in entries where estimatedBytes > maximumBytes && entry.path != kept {
            // Already gone means another process evicted it: either way it no longer counts.
            unlink(entry.path)
            estimatedBytes -= entry.bytes
            let digest = String(entry.path.split(separator: "/").last?.dropLast(Self.entrySuffix.count) ?? "")
            if let evicted = hot.removeValue(forKey: digest) { hotBytes -= evicted.data.count }
        }
    }

    private static func status(of path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    private static func nanoseconds(_ time: timespec) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec) }

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
        private var file: FileHandle?
        private var bytes = 0

        fileprivate init(cache: ReplyCache, key: ReplyKey) throws {
            self.cache = cache
            self.key = key
            tempPath = cache.directory.appendingPathComponent("\(ReplyCache.tempPrefix)\(key.digest)-\(UUID().uuidString)").path
            let descriptor = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw ReplyCacheError(function: "open", path: tempPath, code: errno) }
            file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }

        public func append(_ chunk: Data) throws {
            guard let file else { throw ReplyCacheError(function: "append", path: tempPath, code: EBADF) }
            bytes += chunk.count
            // Past the bound the reply will be dropped at commit: stop filling the disk with it.
            if bytes <= cache.maximumBytes { try file.write(contentsOf: chunk) }
        }

        /// Makes the reply visible under its key, then evicts to the bound.
        public func commit() throws {
            guard let file else { throw ReplyCacheError(function: "commit", path: tempPath, code: EBADF) }
            self.file = nil
            do {
                try file.close()
                try cache.moveIntoPlace(tempPath, bytes: bytes, key: key)
            } catch {
                unlink(tempPath)
                throw error
            }
        }

        /// Deletes what was written; nothing under the key changes.
        public func abandon() {
            guard let file else { return }
            self.file = nil
            try? file.close()
            unlink(tempPath)
        }

        deinit { abandon() }
    }
}
