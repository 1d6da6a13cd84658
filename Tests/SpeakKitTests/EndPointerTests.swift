import Foundation
import Testing

@testable import SpeakKit

@Suite("End-pointing and the spool")
struct EndPointerTests {
    /// Feeds levels of 20 ms each; returns the decision and the seconds observed when it was made.
    static func run(_ levels: [Double], settings: EndPointer.Settings = .init()) -> (EndPointer.Decision, Double) {
        var endPointer = EndPointer(settings: settings)
        for level in levels {
            let decision = endPointer.observe(level: level, duration: 0.02)
            if decision != .continue { return (decision, endPointer.elapsed) }
        }
        return (.continue, endPointer.elapsed)
    }

    static func seconds(_ level: Double, _ duration: Double) -> [Double] {
        Array(repeating: level, count: Int((duration / 0.02).rounded()))
    }

    @Test("speech then 1 s of silence ends the utterance 1 s after the speech")
    func endOfSpeech() {
        let (decision, at) = Self.run(Self.seconds(0, 0.5) + Self.seconds(0.2, 1.0) + Self.seconds(0.001, 3))
        #expect(decision == .endOfSpeech)
        #expect(abs(at - 2.5) < 1e-6)
    }

    @Test("pauses shorter than the silence do not end it")
    func pauses() {
        let words = Array(repeating: Self.seconds(0.3, 0.4) + Self.seconds(0, 0.9), count: 4).flatMap { $0 }
        let (decision, at) = Self.run(words + Self.seconds(0, 2))
        #expect(decision == .endOfSpeech)
        #expect(abs(at - (4 * 1.3 + 0.1)) < 1e-6)
    }

    @Test("a click shorter than 100 ms is not speech; no speech times out", arguments: [0.02, 0.08])
    func clicks(click: Double) {
        let levels = Self.seconds(0, 1) + Self.seconds(0.9, click) + Self.seconds(0, 10)
        let (decision, at) = Self.run(levels, settings: .init(noSpeechTimeout: 3))
        #expect(decision == .noSpeech)
        #expect(abs(at - 3) < 1e-6)
    }

    @Test("exactly 100 ms above the threshold is speech; the threshold is inclusive")
    func minimumSpeech() {
        let (decision, _) = Self.run(
            Self.seconds(0.02, 0.1) + Self.seconds(0.0199, 2), settings: .init(threshold: 0.02, noSpeechTimeout: 1))
        #expect(decision == .endOfSpeech)
        var endPointer = EndPointer()
        for _ in 0..<4 { _ = endPointer.observe(level: 0.5, duration: 0.02) }
        #expect(!endPointer.heardSpeech)
        _ = endPointer.observe(level: 0.5, duration: 0.02)
        #expect(endPointer.heardSpeech)
    }

    @Test("speech heard before the timeout is never noSpeech, however long it goes on")
    func longSpeech() {
        let (decision, _) = Self.run(Self.seconds(0.5, 20), settings: .init(noSpeechTimeout: 2))
        #expect(decision == .continue)
    }

    @Test("the spool lists recordings oldest first and marks them done")
    func spool() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-spool-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let spool = Spool(directory: directory)
        #expect(spool.pending.isEmpty)
        var urls: [URL] = []
        // Back to back, as fast as they can come: the names must still sort in the order made.
        for _ in 0..<50 {
            let url = try spool.newRecordingURL()
            try WAV.encode(PCMBuffer(sampleRate: 16000, samples: [1, 2, 3])).write(to: url)
            urls.append(url)
        }
        try Data("not a recording".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        #expect(spool.pending == urls)
        try spool.markDone(urls[0], keep: false)
        try spool.markDone(urls[1], keep: true)
        #expect(spool.pending == Array(urls.dropFirst(2)))
        #expect(!FileManager.default.fileExists(atPath: urls[0].path))
        #expect(
            FileManager.default.fileExists(
                atPath: spool.doneDirectory.appendingPathComponent(urls[1].lastPathComponent).path))
    }

    @Test("the default spool follows XDG_DATA_HOME")
    func defaultDirectory() {
        let expected =
            ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/speak/spool" }
            ?? FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share/speak/spool"
        #expect(Spool.defaultDirectory.path == expected)
    }
}
