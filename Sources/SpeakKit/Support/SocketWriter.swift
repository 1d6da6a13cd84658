import Glibc

/// Bytes for one connection, sent as its socket takes them: waiting (all of it, within the socket's
/// send timeout) or not (what the socket takes now, the rest kept for the next send). A producer
/// that serves many clients (a synthesis worker, a neural model) sends without waiting while it
/// makes a reply and waits only once it is free, so a client that reads slowly, or not at all,
/// holds memory (at most a reply) but never the producer.
public final class SocketWriter {
    /// The peer left, or its socket did not take what was waiting for it in time.
    public struct Closed: Error {
        public init() {}
    }

    public let descriptor: Int32
    /// Bytes not yet taken by the socket, from `sent` on.
    private var outgoing: [UInt8] = []
    private var sent = 0

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Nothing is waiting to be sent.
    public var isDrained: Bool { sent == outgoing.count }

    public func send(_ bytes: some Sequence<UInt8>, waiting: Bool) throws(Closed) {
        outgoing += bytes
        try flush(waiting: waiting)
    }

    /// Writes what is waiting: all of it, or (not `waiting`) what the socket takes now.
    public func flush(waiting: Bool) throws(Closed) {
        let flags = Int32(MSG_NOSIGNAL) | (waiting ? 0 : Int32(MSG_DONTWAIT))
        while sent < outgoing.count {
            let written = outgoing.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, flags)
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && !waiting && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            guard written > 0 else { throw Closed() }
            sent += written
        }
        if sent == outgoing.count {
            outgoing.removeAll(keepingCapacity: outgoing.count < 1 << 20)
            sent = 0
        } else if sent >= 1 << 20 {
            outgoing.removeFirst(sent)
            sent = 0
        }
    }
}
