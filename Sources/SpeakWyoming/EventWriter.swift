import Foundation
import SpeakKit

/// Writes a connection's events. While a synthesis runs (`synthesizing`) it sends only what the
/// socket takes at once and keeps the rest in memory (bounded by the text limit), to send once
/// the worker is back: the worker is shared by every client, and one that reads slowly, or not
/// at all, must not hold it.
struct EventWriter {
    /// The client left, or the socket could not take what was waiting for it.
    struct Closed: Error {}

    let descriptor: Int32
    /// Encoded events not yet taken by the socket, from `sent` on.
    private var outgoing: [UInt8] = []
    private var sent = 0
    var synthesizing = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Sends `event`, waiting for the socket to take it; while a synthesis runs, only what the
    /// socket takes now, keeping the rest.
    mutating func send(_ event: WyomingEvent) throws(Closed) {
        outgoing += event.encoded
        try flush(waiting: !synthesizing)
    }

    /// Writes `outgoing` to the socket: all of it, or (not `waiting`) what the socket takes now.
    mutating func flush(waiting: Bool) throws(Closed) {
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
