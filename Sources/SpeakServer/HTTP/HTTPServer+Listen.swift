internal import CMicroHTTPD
import Foundation

extension HTTPServer {
    /// A close-on-exec listening socket, so worker processes never inherit it.
    static func listen(host: String, port: Int) throws -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else {
            throw HTTPServerError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.pointee.ai_family, type, 0)
        guard descriptor >= 0 else { throw HTTPServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, 1024) == 0
        else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError("cannot listen on \(host):\(port): \(message)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
        }
        let boundPort = withUnsafePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (descriptor, boundPort)
    }

    static func listen(socketPath path: String) throws -> Int32 {
        let failure = { (what: String) in
            HTTPServerError("cannot listen on \(path): \(what): \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw HTTPServerError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("mkdir") }
        var status = stat()
        guard stat(directory, &status) == 0 else { throw failure("stat") }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw HTTPServerError("\(directory) must be this user's own, mode 0700, to hold the local socket")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let bind = {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
            }
        }
        if bind() != 0 && errno == EADDRINUSE {
            // Someone answering there is another server; nobody answering, a dead one's leftover.
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let answered = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, length) }
            }
            close(probe)
            var existing = stat()
            guard answered != 0, lstat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFSOCK else {
                close(descriptor)
                throw HTTPServerError("\(path) is in use by another server, or is not a socket")
            }
            unlink(path)
            _ = bind()
        }
        // Owner only, whatever the umask: the socket's requests need no token.
        guard chmod(path, 0o600) == 0, Glibc.listen(descriptor, 128) == 0 else {
            let error = failure("bind")
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
