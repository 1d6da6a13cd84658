import Foundation
import SpeakKit
import Synchronization

/// Whether a connection's thread waits for its client (and since when) or is busy: what the
/// acceptor may read without stopping that thread.
final class ConnectionActivity: Sendable {
    /// Milliseconds on ``monotonicSeconds()`` since the connection waits, or `busy`.
    private let waitingSince: Atomic<Int64>
    private static let busy: Int64 = -1

    init() { waitingSince = Atomic(Int64(monotonicSeconds() * 1000)) }

    /// Waiting for the client, outside any request: between events, or inside one that stalled.
    func waiting(since seconds: Double) { waitingSince.store(Int64(seconds * 1000), ordering: .relaxed) }

    /// Reading, serving, or waiting inside an open request (a stream, a recording): keeps its slot.
    func busy() { waitingSince.store(Self.busy, ordering: .relaxed) }

    var waitingSinceMilliseconds: Int64? {
        let value = waitingSince.load(ordering: .relaxed)
        return value == Self.busy ? nil : value
    }
}

/// The open connections: the slots ``WyomingLimits`` allows, at most
/// ``WyomingLimits/connectionsPerAddress`` from one address. When a new connection finds no
/// slot, the connection that has waited longest for its client gives way to it.
final class ConnectionTable: Sendable {
    private struct Entry {
        let peer: String
        let activity: ConnectionActivity
    }

    enum Admission {
        case admitted(ConnectionActivity)
        /// No slot, and no connection waiting to give one up: the reason for the client.
        case refused(String)
    }

    private let entries = Locked<[Int32: Entry]>([:])

    /// Takes a slot for `descriptor`, from `peer`, shutting down a waiting connection if it must.
    func admit(_ descriptor: Int32, from peer: String, limits: WyomingLimits) -> Admission {
        entries.withLock { table in
            let fromPeer = table.filter { $0.value.peer == peer }
            if fromPeer.count >= limits.perAddress {
                guard let victim = Self.longestWaiting(in: fromPeer) else {
                    return .refused("the server is busy: \(fromPeer.count) connections from \(peer) are open")
                }
                Self.evict(victim, from: &table)
            } else if table.count >= limits.connections {
                guard let victim = Self.longestWaiting(in: table) else {
                    return .refused("the server is busy: \(table.count) connections are open")
                }
                Self.evict(victim, from: &table)
            }
            let activity = ConnectionActivity()
            table[descriptor] = Entry(peer: peer, activity: activity)
            return .admitted(activity)
        }
    }

    /// The connection's thread is done with it (before it closes the descriptor, so a descriptor
    /// in the table is never one that was closed and reused).
    func remove(_ descriptor: Int32) {
        entries.withLock { _ = $0.removeValue(forKey: descriptor) }
    }

    /// Ends every connection: their threads see the end of their streams.
    func shutdownAll() {
        entries.withLock { table in
            for descriptor in table.keys { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private static func longestWaiting(in table: [Int32: Entry]) -> Int32? {
        table.compactMap { descriptor, entry in entry.activity.waitingSinceMilliseconds.map { (descriptor, $0) } }
            .min { $0.1 < $1.1 }?.0
    }

    /// Its thread sees the end of its stream and leaves; its slot is free at once. Its descriptor
    /// stays open until that thread closes it, so no new connection can have its number meanwhile.
    private static func evict(_ descriptor: Int32, from table: inout [Int32: Entry]) {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        table.removeValue(forKey: descriptor)
    }
}
