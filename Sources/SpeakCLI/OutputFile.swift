import FoundationEssentials
import Glibc
import SpeakKit

/// Where `-o` writes. A regular file (or a new one) is written under a temporary name beside its
/// destination and renamed into place by `commit()`; dropped uncommitted, it is removed. A symlink
/// is followed, so the link stays and its target is replaced. A FIFO or a character device
/// (`/dev/null`, `/dev/stdout`, a pipe a player reads) is opened and written as it is, as a shell's
/// `>` would: renaming over it would replace it. `-` is standard output. Anything else (a
/// directory, a socket) is refused, and so is a file `>` could not write (read-only, another user's).
package final class OutputFile {
    /// Open for writing until `commit()` (or the end of this object) closes it.
    package let descriptor: Int32
    private var closed = false
    /// The path as given, for messages.
    package let path: String
    private let destination: String
    private let temporary: String?
    private var committed = false

    package init(path: String) throws {
        if path == "-" {
            self.path = "standard output"
            // A copy, so closing it at the end leaves standard output itself open.
            descriptor = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
            guard descriptor >= 0 else { throw Self.cannotWrite(self.path) }
            destination = path
            temporary = nil
            return
        }
        self.path = path
        try RawArguments.checkFileName(path)
        var status = stat()
        let exists = stat(path, &status) == 0
        let type = status.st_mode & S_IFMT
        if exists && (type == S_IFIFO || type == S_IFCHR) {
            // Opened by the name given, so /dev/stdout's /proc link works too. No O_CREAT, no
            // O_TRUNC: the node stays what it is. A FIFO's open waits for its reader, as a shell's
            // would; Ctrl-C interrupts it (the handler has no SA_RESTART).
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else {
                if errno == EINTR { throw PlaybackInterrupted() }
                throw Self.cannotWrite(path)
            }
            self.descriptor = descriptor
            destination = path
            temporary = nil
            return
        }
        if exists && type != S_IFREG {
            let kinds = [S_IFDIR: "a directory", S_IFSOCK: "a socket", S_IFBLK: "a block device"]
            let what = kinds[type] ?? "not a regular file"
            throw InputError(code: .cannotCreate, message: "cannot write \(path): it is \(what)")
        }
        // Through a symlink, the target is replaced and the link stays.
        destination = try exists ? Self.realPath(path) : Self.resolvingSymlinks(path)
        // The rename below needs only the directory's permission: it would replace a read-only file.
        guard !exists || access(destination, W_OK) == 0 else { throw Self.cannotWrite(path) }
        let directory = FileSystem.parent(of: destination)
        var template = Array(((directory.isEmpty ? "." : directory) + "/.speak-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Self.cannotWrite(path) }
        // A replaced file keeps its permissions; a new one is 0644.
        fchmod(descriptor, exists ? status.st_mode & 0o7777 : 0o644)
        temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.descriptor = descriptor
    }

    /// Runs `body`, which writes to `descriptor`, turning a failed write (`/dev/full`, a full disk)
    /// into exit 73 with the system's reason. A pipe or FIFO whose reader left ends the process by
    /// SIGPIPE before that, quietly, as it ends `cat`.
    package func writing<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SystemCallError {
            throw InputError(code: .cannotCreate, message: "cannot write \(path): \(error.message)")
        }
    }

    package func commit() throws {
        closed = true
        // close(2) is where some file systems report a write that failed (NFS, a full quota).
        // Never retried: after EINTR the descriptor is gone already, and may be another file's.
        try writing { if close(descriptor) != 0 { throw SystemCallError("close") } }
        guard let temporary else {
            committed = true
            return
        }
        guard rename(temporary, destination) == 0 else { throw Self.cannotWrite(path) }
        committed = true
    }

    /// The format to write to `path`: `named` (`--file-format`), else the path's extension;
    /// standard output is WAV unless named, and so is a path with no extension when there is an
    /// `unnamed` default (`speak record -o /dev/stdout`).
    package static func format(of path: String, named: String?, unnamed: ReplyFormat? = nil) throws
        -> ReplyFormat
    {
        let pathExtension = FileSystem.pathExtension(of: path)
        let fallback = path == "-" ? .wav : pathExtension.isEmpty ? unnamed : nil
        let name = named ?? fallback?.rawValue ?? pathExtension
        guard let format = ReplyFormat(builtInFileExtension: name) else {
            throw UsageError("cannot tell the format of '\(path)': name it .mp3 or .wav, or give --file-format mp3|wav")
        }
        return format
    }

    deinit {
        if !closed { close(descriptor) }
        if !committed, let temporary { unlink(temporary) }
    }

    private static func cannotWrite(_ path: String) -> InputError {
        InputError(code: .cannotCreate, message: "cannot write \(path): \(String(cString: strerror(errno)))")
    }

    private static func realPath(_ path: String) throws -> String {
        guard let resolved = FileSystem.realPath(path) else { throw cannotWrite(path) }
        return resolved
    }

    /// The path a chain of symlinks ends at, when it does not exist yet (a dangling link); the path
    /// itself if it is no symlink.
    private static func resolvingSymlinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { return current }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let directory = FileSystem.parent(of: current)
            current = target.hasPrefix("/") || directory.isEmpty ? target : directory + "/" + target
        }
        errno = ELOOP
        throw cannotWrite(path)
    }
}
