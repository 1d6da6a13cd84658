import Foundation
import Glibc
import Testing

@testable import SpeakKit

@Suite("One socket layer: listeners and accepted connections are close-on-exec")
struct SocketTests {
    /// The sockets a child started with posix_spawn (no file actions: it inherits whatever is not
    /// close-on-exec) finds open, as `ls -l /proc/self/fd` lists them.
    static func socketsInheritedByChild() throws -> [String] {
        let output = Pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
        var pid = pid_t()
        let words = ["/bin/ls", "-l", "/proc/self/fd"]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        guard posix_spawn(&pid, "/bin/ls", &actions, nil, arguments, environ) == 0 else {
            throw SystemCallError("posix_spawn")
        }
        try output.fileHandleForWriting.close()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return listing.split(separator: "\n").filter { $0.contains("socket:") }.map(String.init)
    }

    @Test("a worker spawned while a client is connected holds neither the listener nor the client")
    func spawnedChildHoldsNoSocket() throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 4)
        defer { close(listener) }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        var peer = sockaddr_storage()
        let accepted = Socket.accept(listener, address: &peer)
        try #require(accepted >= 0)
        defer { close(accepted) }
        #expect(peer.ss_family == sa_family_t(AF_INET))
        for descriptor in [listener, accepted] {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(descriptor) is inherited")
        }
        // The test's own client socket is not close-on-exec: the child sees it, and neither of the others.
        let inherited = try Self.socketsInheritedByChild().joined(separator: "\n")
        func inode(_ descriptor: Int32) -> String {
            var status = stat()
            fstat(descriptor, &status)
            return "socket:[\(status.st_ino)]"
        }
        #expect(inherited.contains(inode(client)), "\(inherited)")
        #expect(!inherited.contains(inode(listener)), "the listener was inherited")
        #expect(!inherited.contains(inode(accepted)), "the accepted connection was inherited")
    }

    @Test("a Unix listener is this user's alone and a second one on the same path is refused")
    func unixListener() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("speak-socket-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("serve.sock").path
        let listener = try Socket.listen(unixPath: path, backlog: 4)
        defer { close(listener) }
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(throws: SocketError.self) { try Socket.listen(unixPath: path, backlog: 4) }
        let client = Socket.connect(unixPath: path)
        try #require(client >= 0)
        defer { close(client) }
        let accepted = Socket.accept(listener)
        defer { close(accepted) }
        #expect(Socket.peerUser(client) == getuid())
        #expect(fcntl(client, F_GETFD) & FD_CLOEXEC != 0)
    }
}
