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
/// bounds them, and ``ConnectionTable`` hands out the slots).
public final class WyomingServer: Sendable {
    public let address: WyomingAddress
    private let listener: Int32
    private let service: WyomingService
    private let connections = ConnectionTable()
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
        connections.shutdownAll()
    }

    private func acceptLoop() {
        defer { acceptorDone.signal() }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            // Close-on-exec from the start: a worker process spawned meanwhile never holds a client.
            let client = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    acceptCloseOnExec(listener, $0, &length)
                }
            }
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if stopping.load(ordering: .sequentiallyConsistent) { return }
                // Out of descriptors: wait for a connection to end rather than spin.
                usleep(50_000)
                continue
            }
            configure(client)
            switch connections.admit(client, from: Self.text(of: peer), limits: service.limits) {
            case .refused(let reason):
                let busy = WyomingEvent.error(reason, code: "busy").encoded
                _ = busy.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                close(client)
            case .admitted(let activity):
                Thread.detachNewThread { [self] in
                    WyomingSession(descriptor: client, service: service, activity: activity).run()
                    connections.remove(client)
                    close(client)
                }
            }
        }
    }

    private func configure(_ client: Int32) {
        var yes: Int32 = 1
        // Each audio chunk goes out at once: the first one's latency is what a listener hears.
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        // Reading has its own deadlines (EventReader); a client that stops reading is let go after this.
        let seconds = service.limits.idleSeconds
        var idle = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A peer's address as text, an IPv4 address mapped into IPv6 as plain IPv4: the key of the
    /// per-address limit.
    static func text(of peer: sockaddr_storage) -> String {
        var storage = peer
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &storage) { pointer -> String in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var address = $0.pointee.sin_addr
                    return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)).map { String(cString: $0) } ?? ""
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var address = $0.pointee.sin6_addr
                    let bytes = withUnsafeBytes(of: &address) { Array($0) }
                    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                        return bytes[12...].map(String.init).joined(separator: ".")
                    }
                    return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)).map { String(cString: $0) } ?? ""
                }
            default:
                return ""
            }
        }
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

/// `accept4(…, SOCK_CLOEXEC)`. glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc
/// module is not built with, so it is looked up by name once.
private func acceptCloseOnExec(
    _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> Int32 {
    accept4Function(listener, address, length, Int32(SOCK_CLOEXEC.rawValue))
}

private typealias Accept4 =
    @convention(c) (
        Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
    ) -> Int32

private let accept4Function: Accept4 = {
    guard let symbol = dlsym(nil, "accept4") else { fatalError("glibc has no accept4") }
    return unsafeBitCast(symbol, to: Accept4.self)
}()
