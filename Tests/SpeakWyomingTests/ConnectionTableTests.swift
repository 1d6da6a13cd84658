import Foundation
import Testing

@testable import SpeakWyoming

/// A connected socket pair: the table's end, and the end that sees what the table does to it.
private func socketPair() -> (server: Int32, client: Int32) {
    var ends: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
    return (ends[0], ends[1])
}

/// Whether the server end was shut down: the client end reads the end of the stream at once.
private func wasShutDown(_ client: Int32) -> Bool {
    var byte: UInt8 = 0
    return recv(client, &byte, 1, Int32(MSG_DONTWAIT)) == 0
}

@Suite("Wyoming connection slots")
struct ConnectionTableTests {
    private func limits(connections: Int, perAddress: Int) -> WyomingLimits {
        var limits = WyomingLimits()
        limits.connections = connections
        limits.connectionsPerAddress = perAddress
        return limits
    }

    private func admitted(_ admission: ConnectionTable.Admission) -> ConnectionActivity? {
        if case .admitted(let activity) = admission { return activity }
        return nil
    }

    @Test("past an address's cap, that address's longest-waiting connection gives way; none waiting, it is refused")
    func perAddress() throws {
        let table = ConnectionTable()
        let limits = limits(connections: 8, perAddress: 2)
        let pairs = (0..<4).map { _ in socketPair() }
        defer {
            for pair in pairs {
                close(pair.server)
                close(pair.client)
            }
        }
        let first = try #require(admitted(table.admit(pairs[0].server, from: "10.0.0.1", limits: limits)))
        let second = try #require(admitted(table.admit(pairs[1].server, from: "10.0.0.1", limits: limits)))
        first.waiting(since: 2)
        second.waiting(since: 1)
        let third = try #require(admitted(table.admit(pairs[2].server, from: "10.0.0.1", limits: limits)))
        #expect(wasShutDown(pairs[1].client) && !wasShutDown(pairs[0].client))
        // Another address is not limited by this one's cap.
        #expect(admitted(table.admit(pairs[3].server, from: "10.0.0.2", limits: limits)) != nil)
        first.busy()
        third.busy()
        let late = socketPair()
        defer {
            close(late.server)
            close(late.client)
        }
        let refused = table.admit(late.server, from: "10.0.0.1", limits: limits)
        guard case .refused(let reason) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(reason.contains("10.0.0.1"), "\(reason)")
    }

    @Test("all slots taken: the connection waiting longest, from any address, gives way; a busy one never does")
    func full() throws {
        let table = ConnectionTable()
        let limits = limits(connections: 3, perAddress: 3)
        let pairs = (0..<4).map { _ in socketPair() }
        defer {
            for pair in pairs {
                close(pair.server)
                close(pair.client)
            }
        }
        let activities = try (0..<3).map { index in
            try #require(admitted(table.admit(pairs[index].server, from: "10.0.0.\(index)", limits: limits)))
        }
        activities[0].busy()
        activities[1].waiting(since: 5)
        activities[2].waiting(since: 3)
        #expect(admitted(table.admit(pairs[3].server, from: "10.0.0.9", limits: limits)) != nil)
        #expect(wasShutDown(pairs[2].client))
        #expect(!wasShutDown(pairs[0].client) && !wasShutDown(pairs[1].client))
    }

    @Test("SPEAK_WYOMING_LIMITS: names and values are checked; per-address is half the slots unless given")
    func parsing() throws {
        let limits = try WyomingLimits(parsing: "connections=10, header-seconds=0.5")
        #expect(limits.connections == 10 && limits.perAddress == 5 && limits.headerSeconds == 0.5)
        #expect(try WyomingLimits(parsing: "per-address=3").perAddress == 3)
        for bad in ["slots=3", "connections=0", "header-seconds=-1", "connections=4,per-address=5", "idle-seconds"] {
            #expect(throws: WyomingServerError.self, "\(bad)") { try WyomingLimits(parsing: bad) }
        }
    }
}

@Suite("Wyoming event deadlines")
struct EventDeadlineTests {
    @Test("an event stalled inside its header ends once its time is up; a silent client at the idle time")
    func stalled() throws {
        var limits = WyomingLimits()
        limits.headerSeconds = 0.2
        limits.idleSeconds = 0.2
        let pair = socketPair()
        defer {
            close(pair.server)
            close(pair.client)
        }
        var reader = EventReader(descriptor: pair.server, limits: limits)
        #expect(throws: WyomingReadError.idle) { try reader.next() }
        _ = write(pair.client, "{\"ty", 4)
        #expect(throws: WyomingReadError.tooSlow(seconds: 1)) { try reader.next() }
    }

    @Test("while a request is open, a waiting connection is not offered to give way")
    func inRequest() throws {
        var limits = WyomingLimits()
        limits.idleSeconds = 0.05
        let pair = socketPair()
        defer {
            close(pair.server)
            close(pair.client)
        }
        var reader = EventReader(descriptor: pair.server, limits: limits)
        let activity = ConnectionActivity()
        reader.activity = activity
        reader.inRequest = true
        activity.busy()
        #expect(throws: WyomingReadError.idle) { try reader.next() }
        #expect(activity.waitingSinceMilliseconds == nil)
    }
}
