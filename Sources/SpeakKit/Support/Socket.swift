internal import CSocket
import FoundationEssentials
import Glibc

/// A socket that could not be opened, bound, listened on or connected: what was tried, and why.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The one place speak opens sockets: every listener, client and accepted connection is
/// close-on-exec from the moment it exists, so a worker process spawned meanwhile inherits none.
/// HTTP, Wyoming and the local hand-off all come through here.
public enum Socket {
    /// A TCP listener on `host:port` (port 0: any free port), and the port it got.
    public static func listen(host: String, port: Int, backlog: Int32) throws(SocketError) -> (
        descriptor: Int32, port: Int
    ) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else {
            throw SocketError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let descriptor = socket(address.pointee.ai_family, Self.streamCloseOnExec, 0)
        guard descriptor >= 0 else { throw SocketError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, backlog) == 0
        else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw SocketError("cannot listen on \(host):\(port): \(message)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        let boundPort = withUnsafePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (descriptor, boundPort)
    }

    /// The next connection on `listener`, close-on-exec (`accept4`); -1 with `errno` set, as
    /// `accept` fails. With `address`, the peer's address is written there.
    public static func accept(_ listener: Int32, address: UnsafeMutablePointer<sockaddr_storage>? = nil) -> Int32 {
        guard let address else { return speak_accept_close_on_exec(listener, nil, nil) }
        var length = UInt32(MemoryLayout<sockaddr_storage>.size)
        return speak_accept_close_on_exec(listener, address, &length)
    }

    /// A Unix-socket address for `path`; nil when the path does not fit `sun_path`.
    static func unixAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        return address
    }

    /// Connects to the Unix socket at `path`; `-1` with `errno` set, as `connect` fails.
    public static func connect(unixPath path: String) -> Int32 {
        guard var address = unixAddress(path) else {
            errno = ENAMETOOLONG
            return -1
        }
        let descriptor = socket(AF_UNIX, Self.streamCloseOnExec, 0)
        guard descriptor >= 0 else { return -1 }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            errno = code
            return -1
        }
        return descriptor
    }

    /// A listener on the Unix socket at `path`, reachable by this user alone: its directory must
    /// be the user's own with mode 0700 (made so if missing), the socket is 0600 whatever the umask.
    /// A socket file nobody answers on is a dead server's leftover and is replaced; one that
    /// answers belongs to a running server and is refused.
    public static func listen(unixPath path: String, backlog: Int32) throws(SocketError) -> Int32 {
        let failure = { (what: String) in
            SocketError("cannot listen on \(path): \(what): \(String(cString: strerror(errno)))")
        }
        guard var address = unixAddress(path) else { throw SocketError("socket path too long: \(path)") }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("mkdir") }
            var status = stat()
            guard stat(directory, &status) == 0 else { throw failure("stat") }
            guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
                throw SocketError("\(directory) must be this user's own, mode 0700, to hold the local socket")
            }
        }
        let descriptor = socket(AF_UNIX, Self.streamCloseOnExec, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let bind = {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
            }
        }
        if bind() != 0 && errno == EADDRINUSE {
            let probe = connect(unixPath: path)
            if probe >= 0 { close(probe) }
            var existing = stat()
            guard probe < 0, lstat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFSOCK else {
                close(descriptor)
                throw SocketError("\(path) is in use by another server, or is not a socket")
            }
            unlink(path)
            _ = bind()
        }
        guard chmod(path, 0o600) == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let error = failure("bind")
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// The user id of the process at the other end of a connected Unix socket.
    public static func peerUser(_ descriptor: Int32) -> UInt32? {
        var user: UInt32 = 0
        return speak_peer_user(descriptor, &user) == 0 ? user : nil
    }

    private static let streamCloseOnExec = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
}
