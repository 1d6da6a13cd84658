import Foundation
import SpeakKit
import SpeakMedia
import Testing

/// `-o` onto what is not a plain file (issue 11, item 1): devices, FIFOs and symlinks are written
/// through; directories and sockets are refused with exit 73; nothing is ever replaced.
@Suite("speak -o onto special files")
final class OutputTargetTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("speak-out-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// A character device like `/dev/null` (1,3) or `/dev/full` (1,7): a private node made with
    /// mknod where allowed (root; `1 << 8 | minor` is `makedev(1, minor)`), so a regression cannot
    /// replace the machine's own; else the real one.
    func characterDevice(_ name: String, minor: UInt32) -> String {
        let path = scratch.appendingPathComponent(name).path
        return mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | minor)) == 0 ? path : "/dev/\(name)"
    }

    func fileType(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & S_IFMT
    }

    @Test(
        "/dev/full: exit 73, 'No space left on device'; the device stays",
        arguments: ["mp3", "wav", "m4a", "aiff", "ogg", "flac"])
    func deviceFull(format: String) throws {
        let full = characterDevice("full", minor: 7)
        let result = try Speak.run(["--file-format", format, "-o", full, "Hi"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr == "speak: cannot write \(full): No space left on device\n", "\(result.stderr)")
        #expect(fileType(full) == S_IFCHR)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.hasPrefix(".speak-") })
    }

    @Test("/dev/null takes the reply and stays a device", arguments: ["mp3", "wav", "m4a", "aiff", "ogg", "flac"])
    func deviceNull(format: String) throws {
        let null = characterDevice("null", minor: 3)
        let result = try Speak.run(["--file-format", format, "-o", null, "Hi"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(null) == S_IFCHR)
    }

    /// `speak -o FIFO` with a reader on the FIFO: the FIFO's path, speak's result and what was read.
    func speakIntoFIFO(format: String) throws -> (fifo: String, result: Subprocess.Result, received: Data) {
        let fifo = scratch.appendingPathComponent("reply.\(format)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // A second name for the FIFO, to release the reader even if speak never opens it.
        let spare = scratch.appendingPathComponent("spare").path
        #expect(link(fifo, spare) == 0)
        let received = Locked(Data())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if let reader = FileHandle(forReadingAtPath: fifo) {
                let data = reader.readDataToEndOfFile()
                received.withLock { $0 = data }
            }
            done.signal()
        }
        let result = try Speak.run(["-o", fifo, "Streamed through a pipe."])
        let release = open(spare, O_WRONLY | O_NONBLOCK)
        if release >= 0 { close(release) }
        #expect(done.wait(timeout: .now() + 10) == .success)
        return (fifo, result, received.withLock { $0 })
    }

    @Test("a FIFO gets the whole reply as a stream and stays a FIFO", arguments: ["mp3", "wav"])
    func fifo(format: String) throws {
        let (fifo, result, received) = try speakIntoFIFO(format: format)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(fifo) == S_IFIFO)
        let pcm = try PCMBuffer(audio: received)
        #expect(pcm.duration > 0.8, "\(received.count) bytes")
        #expect(WAV.isWAV(received) == (format == "wav"))
    }

    @Test(
        "a FIFO gets say's streamable types through FFmpeg (MP4 in fragments); AIFF, which must seek, is refused",
        arguments: ["m4a", "ogg", "flac", "caf", "aiff"])
    func fifoThroughFFmpeg(format: String) throws {
        let (fifo, result, received) = try speakIntoFIFO(format: format)
        #expect(fileType(fifo) == S_IFIFO)
        guard format != "aiff" else {
            #expect(result.status == 64 && result.stderr.contains("cannot be streamed into a pipe"), "\(result.stderr)")
            return
        }
        #expect(result.status == 0, "\(result.stderr)")
        let pcm = try MediaDecoder.decode(received, sampleRate: 16000)
        #expect(pcm.duration > 0.8, "\(received.count) bytes")
    }

    @Test("a symlink is written through: the link stays, its target gets the reply")
    func symlink() throws {
        let target = scratch.appendingPathComponent("real.mp3")
        try Data("old".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
        let link = scratch.appendingPathComponent("link.mp3").path
        #expect(Glibc.symlink("real.mp3", link) == 0)
        let result = try Speak.run(["-o", link, "Through the link."])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(link) == S_IFLNK)
        #expect(try PCMBuffer(audio: Data(contentsOf: target)).duration > 0.5)
        // The target keeps its permissions.
        #expect(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int == 0o600)

        // A dangling link creates its target; a link to a device writes to the device.
        let dangling = scratch.appendingPathComponent("dangling.wav").path
        #expect(Glibc.symlink("new.wav", dangling) == 0)
        #expect(try Speak.run(["-o", dangling, "Hi"]).status == 0)
        #expect(fileType(dangling) == S_IFLNK)
        #expect(try PCMBuffer(audio: Data(contentsOf: scratch.appendingPathComponent("new.wav"))).duration > 0.2)
        let toFull = scratch.appendingPathComponent("full.mp3").path
        let full = characterDevice("full", minor: 7)
        #expect(Glibc.symlink(full, toFull) == 0)
        let refused = try Speak.run(["-o", toFull, "Hi"])
        #expect(refused.status == 73 && refused.stderr.contains("No space left on device"), "\(refused.stderr)")
        #expect(fileType(full) == S_IFCHR && fileType(toFull) == S_IFLNK)
    }

    @Test("-o /dev/stdout streams the reply into a pipe")
    func standardOutput() throws {
        let output = scratch.appendingPathComponent("piped.wav")
        let script = "set -o pipefail; \"$0\" --file-format wav -o /dev/stdout Piped. | cat > \"$1\""
        let result = try Subprocess.run("/bin/bash", ["-c", script, Speak.executable, output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.3)
    }

    @Test("-o - writes standard output: WAV unless --file-format names MP3; a reader that leaves ends it by SIGPIPE")
    func dash() throws {
        for format in ["wav", "mp3"] {
            let output = scratch.appendingPathComponent("piped.\(format)")
            let named = format == "mp3" ? "--file-format mp3" : ""
            // In the scratch directory, where a file named '-' would show.
            let script = "set -o pipefail; cd \"$2\" && \"$0\" \(named) -o - Piped. | cat > \"$1\""
            let result = try Subprocess.run("/bin/bash", ["-c", script, Speak.executable, output.path, scratch.path])
            #expect(result.status == 0, "\(result.stderr)")
            let data = try Data(contentsOf: output)
            #expect(WAV.isWAV(data) == (format == "wav"))
            #expect(try PCMBuffer(audio: data).duration > 0.3)
            #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("-").path))
        }
        // Standard output a file the shell opened, written to before and after: the header goes where
        // the reply starts, and the next writer goes on after it (a rewrite at 0 overwrote both).
        let shared = scratch.appendingPathComponent("shared.wav")
        let both = "{ printf HEAD; \"$0\" -o - One.; \"$0\" -o - Two.; } > \"$1\""
        #expect(try Subprocess.run("/bin/bash", ["-c", both, Speak.executable, shared.path]).status == 0)
        let written = try Data(contentsOf: shared)
        #expect(written.prefix(4) == Data("HEAD".utf8))
        let first = written.dropFirst(4)
        let firstLength = 8 + Int(first.dropFirst(4).prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        for reply in [first.prefix(firstLength), first.dropFirst(firstLength)] {
            #expect(try PCMBuffer(audio: Data(reply)).duration > 0.2, "\(reply.count) bytes")
        }
        // Appended to (>>): a stream's header, never a rewrite, which O_APPEND put at the end.
        let appended = scratch.appendingPathComponent("appended.wav")
        let twice = "\"$0\" -o - One. >> \"$1\" && \"$0\" -o - Two. >> \"$1\""
        #expect(try Subprocess.run("/bin/bash", ["-c", twice, Speak.executable, appended.path]).status == 0)
        let appendedData = try Data(contentsOf: appended)
        #expect(appendedData.count > 88 && appendedData.suffix(44).range(of: Data("RIFF".utf8)) == nil)
        #expect(try PCMBuffer(audio: appendedData).duration > 0.2)

        // Quietly, as `cat` ends: the reader took what it wanted.
        let text = String(repeating: "Far more speech than the reader wants to hear. ", count: 20)
        let script = "\"$0\" -o - \"$1\" | head -c 100 > /dev/null; echo ${PIPESTATUS[0]}"
        let result = try Subprocess.run("/bin/bash", ["-c", script, Speak.executable, text])
        #expect(result.stdout == "\(128 + SIGPIPE)\n" && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
    }

    @Test("a file this user may not write (read-only, another user's) is refused with exit 73 as > refuses it")
    func unwritableFile() throws {
        let readOnly = scratch.appendingPathComponent("read-only.wav")
        let theirs = scratch.appendingPathComponent("theirs.wav")
        for file in [readOnly, theirs] { try Data("old".utf8).write(to: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: readOnly.path)
        var files = [readOnly]
        var command = [Speak.executable]
        if getuid() == 0 {
            // Root may write any file: without the capabilities that let it, it may not, as a user.
            try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: theirs.path)
            files.append(theirs)
            command = ["/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"] + command
        }
        for file in files {
            let result = try Subprocess.run(command[0], Array(command.dropFirst()) + ["-o", file.path, "Hi"])
            #expect(result.status == 73, "\(file.lastPathComponent): \(result.stderr)")
            #expect(result.stderr == "speak: cannot write \(file.path): Permission denied\n", "\(result.stderr)")
            #expect(try Data(contentsOf: file) == Data("old".utf8), "\(file.lastPathComponent) was replaced")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.hasPrefix(".speak-") })
    }

    @Test("a directory or a socket is refused with exit 73, and left as it was")
    func refused() throws {
        let socketPath = scratch.appendingPathComponent("reply.mp3").path
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        let directory = scratch.appendingPathComponent("dir.mp3")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (path, what) in [(socketPath, "a socket"), (directory.path, "a directory")] {
            let result = try Speak.run(["-o", path, "Hi"])
            #expect(result.status == 73, "\(result.stderr)")
            #expect(result.stderr == "speak: cannot write \(path): it is \(what)\n", "\(result.stderr)")
        }
        #expect(fileType(socketPath) == S_IFSOCK)
        #expect(fileType(directory.path) == S_IFDIR)
    }
}
