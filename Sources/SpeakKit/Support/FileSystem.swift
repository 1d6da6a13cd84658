import FoundationEssentials
import Glibc

/// Plain POSIX file reads for the paths every `speak TEXT` takes, where FileManager's first use
/// (its shared instance and its URL handling) costs more than the read itself.
package enum FileSystem {
    /// The entries of directory `path` but `.` and `..`, unsorted; `nil` if it cannot be read.
    package static func names(in path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole of file `path`, read to its end, so a pipe or FIFO works as a file does. More than
    /// `maximumBytes` (`/dev/zero`, say) is `EFBIG`.
    package static func contents(of path: String, maximumBytes: Int = .max) throws(SystemCallError) -> [UInt8] {
        let file = try SystemCall.retrying("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(file) }
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16384, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = try SystemCall.retrying("read") { read(file, chunk.baseAddress, chunk.count) }
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumBytes else { throw SystemCallError("read", code: EFBIG) }
            bytes += chunk[..<count]
        }
    }

    /// A new directory `parent/prefixXXXXXX` made by mkdtemp(3): a name nobody could guess and
    /// create first, mode 0700, and this call's own (it fails rather than take one that exists).
    /// Returns its path.
    package static func makeUniqueDirectory(in parent: String, prefix: String) throws(SystemCallError) -> String {
        var template = Array((parent + "/" + prefix + "XXXXXX").utf8CString)
        guard (template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }) != nil else {
            throw SystemCallError("mkdtemp")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `mkdir -p path` (mode 0755 less the umask), failing with the call and the path that
    /// failed (FileManager's error names neither in a way one line can say).
    package static func makeDirectories(_ path: String) throws(SystemCallError) {
        var made = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o755) != 0, errno != EEXIST { throw SystemCallError("mkdir \(made)") }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw SystemCallError("stat \(path)") }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw SystemCallError("mkdir \(path)", code: ENOTDIR) }
    }

    /// `path` with every symbolic link, `.` and `..` resolved, if it exists.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` with `.` and `..` resolved by its text alone, as URL's `standardizedFileURL` does.
    package static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else {
                parts.append(part)
            }
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// Whether something exists at `path` (following symbolic links).
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `path` without its last component, as NSString's `deletingLastPathComponent` gives it:
    /// `/a/b` → `/a`, `/a` → `/`, `b` → ``.
    package static func parent(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The extension of `path`'s last component (`mp3` for `a/b.mp3`), `` if it has none.
    package static func pathExtension(of path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}
