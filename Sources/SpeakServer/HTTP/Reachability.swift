// sys/socket.h's constants come through libmicrohttpd's shim in every build mode.
internal import CMicroHTTPD
import Foundation

/// Whether something accepts TCP connections at the URL's host and port (within 2 s).
public func acceptsConnections(_ url: String) -> Bool {
    guard let components = URLComponents(string: url), let host = components.host else { return false }
    let port = components.port ?? (components.scheme == "https" ? 443 : 80)
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var result: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &result) == 0, let address = result else { return false }
    defer { freeaddrinfo(result) }
    let descriptor = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0
}
