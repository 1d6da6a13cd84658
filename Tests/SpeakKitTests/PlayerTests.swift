import Foundation
import Testing

@testable import SpeakKit

/// The player opens its device ahead, while the first chunk is made, when it is told the rate.
/// ALSA's `file` plugin (`file:FILE=…,FORMAT=wav`) records what the device was opened at.
@Suite("Player: the device opened ahead of the first chunk", .serialized)
struct PlayerTests {
    let samples = [Int16](repeating: 1000, count: 2205)

    func play(_ player: Player, expecting rate: Int?, chunksAt chunkRate: Int) throws {
        try player.play(expectedSampleRate: rate) { write in
            try samples.withUnsafeBufferPointer { try write(PCMChunk(samples: $0, sampleRate: chunkRate)) }
        }
    }

    func recording(_ file: URL) throws -> PCMBuffer { try PCMBuffer(audio: Data(contentsOf: file)) }

    @Test("at the rate the chunks come at, or reopened at theirs when told wrong", arguments: [22050, 8000])
    func rates(expected: Int) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("player-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        try play(Player(device: "file:FILE=\(file.path),FORMAT=wav"), expecting: expected, chunksAt: 22050)
        let heard = try recording(file)
        #expect(heard.sampleRate == 22050)
        #expect(heard.samples == samples)
    }

    @Test("a device that cannot open fails as it does when opened at the first chunk")
    func missingDevice() {
        let player = Player(device: "no-such-device")
        for rate in [22050, nil] {
            #expect {
                try play(player, expecting: rate, chunksAt: 22050)
            } throws: { error in
                guard case .noPlaybackDevice("no-such-device", _)? = error as? PlaybackError else { return false }
                return true
            }
        }
    }

    @Test("an error before the first chunk is the caller's, and the device opened ahead is let go")
    func failureBeforeAudio() throws {
        struct NothingToSay: Error {}
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("player-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        let player = Player(device: "file:FILE=\(file.path),FORMAT=wav")
        #expect(throws: NothingToSay.self) { try player.play(expectedSampleRate: 22050) { _ in throw NothingToSay() } }
        // The machine-wide playback lock and the device were both released: the next play works.
        try play(player, expecting: 22050, chunksAt: 22050)
        #expect(try recording(file).samples == samples)
    }

    @Test(
        "a turn taken ahead holds the speaker, opens the device before any audio, and plays", arguments: [22050, 8000])
    func openedAhead(guess: Int) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("player-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        let ahead = try Player(device: "file:FILE=\(file.path),FORMAT=wav").openingAhead(sampleRate: guess)
        // Held: a player that will not wait is told the speaker is busy.
        #expect(throws: PlaybackBusy.self) {
            try play(Player(device: "null", waitForTurn: false), expecting: nil, chunksAt: 22050)
        }
        try ahead.play { write in
            // ALSA's file plugin creates its file when the device opens: before the first chunk.
            var waited = 0
            while !FileManager.default.fileExists(atPath: file.path) && waited < 1000 {
                usleep(5000)
                waited += 1
            }
            #expect(FileManager.default.fileExists(atPath: file.path), "the device was not opened ahead")
            try samples.withUnsafeBufferPointer { try write(PCMChunk(samples: $0, sampleRate: 22050)) }
        }
        let heard = try recording(file)
        #expect(heard.sampleRate == 22050)
        #expect(heard.samples == samples)
    }

    @Test("a turn taken ahead and never played lets the speaker and its device go")
    func aheadUnplayed() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("player-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try Player(device: "file:FILE=\(file.path),FORMAT=wav").openingAhead(sampleRate: 22050)
        // The next player gets its turn (it would wait for ever if the turn were kept) and plays.
        try play(Player(device: "file:FILE=\(file.path),FORMAT=wav"), expecting: 22050, chunksAt: 22050)
        #expect(try recording(file).samples == samples)
    }
}
