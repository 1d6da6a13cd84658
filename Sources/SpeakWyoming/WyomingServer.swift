import Foundation
import SpeakKit
import Synchronization

/// Where a Wyoming server listens: `tcp://HOST:PORT`, as wyoming-piper's `--uri` takes it.
public struct WyomingAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `tcp://HOST:PORT`; an IPv6 host in brackets (`tcp://[::]:10200`).
    public init(uri: String) throws(WyomingServerError) {
        guard uri.hasPrefix("tcp://") else {
            throw WyomingServerError("a Wyoming address is tcp://HOST:PORT, not '\(uri)'")
        }
        let rest = uri.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw WyomingServerError("a Wyoming address is tcp://HOST:PORT with a port 0 to 65535, not '\(uri)'") }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw WyomingServerError("a Wyoming address needs a host: tcp://0.0.0.0:\(port)") }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)" }

    /// Bound to every interface (`0.0.0.0`, `::`): the address to advertise is the host's own.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }
    public var isLoopback: Bool { host == "localhost" || host.hasPrefix("127.") || host == "::1" }
}

public struct WyomingServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The Wyoming protocol over TCP: a thread accepts, and each connection gets a thread of its own
/// (a client holds one connection per request, so there are few at a time; ``WyomingLimits``
/// bounds them).
public final class WyomingServer: Sendable {
    public let address: WyomingAddress
    private let listener: Int32
    private let service: WyomingService
    private let open = Locked<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)
    private let acceptorDone = DispatchSemaphore(value: 0)

    /// Listens on `address` (port 0: any free port, which ``address`` then names) and serves.
    public init(address: WyomingAddress, service: WyomingService) throws(WyomingServerError) {
        let (descriptor, port) = try Self.listen(host: address.host, port: address.port)
        listener = descriptor
        self.address = WyomingAddress(host: address.host, port: port)
        self.service = service
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting and ends every open connection.
    public func shutdown() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        acceptorDone.wait()
        close(listener)
        open.withLock { descriptors in
            for descriptor in descriptors { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if stopping.load(ordering: .sequentiallyConsistent) { return }
                // Out of descriptors: wait for a connection to end rather than spin.
                usleep(50_000)
                continue
            }
            // Not inherited by a worker process started meanwhile (accept4 is not in Glibc's module).
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            configure(client)
            let admitted = open.withLock { descriptors -> Bool in
                guard descriptors.count < service.limits.connections else { return false }
                descriptors.insert(client)
                return true
            }
            guard admitted else {
                let busy = WyomingEvent.error(
                    "the server is busy: \(service.limits.connections) connections are open", code: "busy")
                _ = busy.encoded.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
                continue
            }
            Thread.detachNewThread { [self] in
                WyomingSession(descriptor: client, service: service).run()
                open.withLock { _ = $0.remove(client) }
                close(client)
            }
        }
    }

    private func configure(_ client: Int32) {
        var yes: Int32 = 1
        // Each audio chunk goes out at once: the first one's latency is what a listener hears.
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var idle = timeval(tv_sec: service.limits.idleSeconds, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A close-on-exec listening socket, so worker processes never inherit it.
    private static func listen(host: String, port: Int) throws(WyomingServerError) -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let address = result else {
            throw WyomingServerError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let descriptor = socket(
            address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw WyomingServerError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, 128) == 0
        else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw WyomingServerError("cannot listen on \(host):\(port): \(message)")
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
}
