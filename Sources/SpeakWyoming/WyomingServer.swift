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
        let (descriptor, port): (Int32, Int)
        do {
            (descriptor, port) = try Socket.listen(host: address.host, port: address.port, backlog: 128)
        } catch {
            throw WyomingServerError(error.description)
        }
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
            let client = Socket.accept(listener, address: &peer)
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
}
