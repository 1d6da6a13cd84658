import Foundation
import SpeakKit

/// Writes a connection's events. While a synthesis runs (`synthesizing`) it sends only what the
/// socket takes at once and keeps the rest in memory (bounded by the text limit), to send once
/// the worker is back: the worker is shared by every client, and one that reads slowly, or not
/// at all, must not hold it.
struct EventWriter {
    typealias Closed = SocketWriter.Closed

    let socket: SocketWriter
    var synthesizing = false

    init(descriptor: Int32) { socket = SocketWriter(descriptor: descriptor) }

    /// Sends `event`, waiting for the socket to take it; while a synthesis runs, only what the
    /// socket takes now, keeping the rest.
    func send(_ event: WyomingEvent) throws(SocketWriter.Closed) {
        try socket.send(event.encoded, waiting: !synthesizing)
    }

    /// Writes what is waiting: all of it, or (not `waiting`) what the socket takes now.
    func flush(waiting: Bool) throws(SocketWriter.Closed) { try socket.flush(waiting: waiting) }
}
