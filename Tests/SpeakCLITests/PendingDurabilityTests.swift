import Foundation
import SpeakKit
import Testing

/// `speak transcribe --pending` deletes a recording only once its text is safe (issue 11, item 7):
/// killed right after the first file, the first file's text must already be out.
@Suite("speak transcribe --pending: no recording lost to a kill")
final class PendingDurabilityTests {
    let dataHome: URL
    let spool: Spool
    var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 }
    }

    init() throws {
        dataHome = FileManager.default.temporaryDirectory
            .appendingPathComponent("speak-pending-\(UUID().uuidString.prefix(8))")
        spool = Spool(directory: dataHome.appendingPathComponent("speak/spool"))
        try FileManager.default.createDirectory(at: spool.directory, withIntermediateDirectories: true)
        // The first recording is short; the second long, so the kill lands while it is transcribed.
        let yes = try PCMBuffer(
            audio: Data(contentsOf: TranscriptionServerTests.samples.appendingPathComponent("yes.wav")))
        try WAV.encode(yes).write(to: spool.directory.appendingPathComponent("20260101-000000.000-first.wav"))
        var long = PCMBuffer(sampleRate: yes.sampleRate)
        for _ in 0..<40 { long.samples += yes.samples }
        try WAV.encode(long).write(to: spool.directory.appendingPathComponent("20260101-000001.000-second.wav"))
    }

    /// Swift Testing runs it after each test: `dataHome` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: dataHome) }

    /// Starts `speak transcribe --pending ARGUMENTS`, kills it with SIGKILL once the first
    /// recording is gone from the spool, and returns what it printed.
    func killedAfterFirst(_ arguments: [String]) throws -> Subprocess.Result {
        let first = spool.directory.appendingPathComponent("20260101-000000.000-first.wav").path
        let running = try Speak.start(["transcribe", "--pending"] + arguments, environment: environment)
        let deadline = Date().addingTimeInterval(180)
        while FileManager.default.fileExists(atPath: first) && Date() < deadline { usleep(2_000) }
        running.send(SIGKILL)
        let result = running.wait()
        try #require(result.signal == SIGKILL, "it ended before the kill: \(result.stderr)")
        #expect(spool.pending.map(\.lastPathComponent) == ["20260101-000001.000-second.wav"])
        return result
    }

    @Test("--keep over a kept recording of the same name replaces it: the recording is not left pending")
    func keepReplaces() throws {
        try FileManager.default.removeItem(at: spool.directory.appendingPathComponent("20260101-000001.000-second.wav"))
        let first = spool.directory.appendingPathComponent("20260101-000000.000-first.wav")
        try FileManager.default.createDirectory(at: spool.doneDirectory, withIntermediateDirectories: true)
        try Data("an earlier copy".utf8).write(to: spool.doneDirectory.appendingPathComponent(first.lastPathComponent))
        let recording = try Data(contentsOf: first)
        let result = try Speak.run(["transcribe", "--pending", "--keep"], environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(spool.pending.isEmpty, "left pending, to be printed again by the next --pending")
        #expect(try Data(contentsOf: spool.doneDirectory.appendingPathComponent(first.lastPathComponent)) == recording)
    }

    @Test("the first text reached standard output before its recording was deleted")
    func standardOutput() throws {
        let result = try killedAfterFirst([])
        #expect(result.stdout.contains("first.wav: "), "printed: \(result.stdout.debugDescription)")
    }

    @Test("--output FILE holds the first text before its recording was deleted")
    func outputFile() throws {
        let output = dataHome.appendingPathComponent("transcripts.txt")
        try Data("earlier line\n".utf8).write(to: output)
        _ = try killedAfterFirst(["--output", output.path])
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.hasPrefix("earlier line\n"), "appends: \(written.debugDescription)")
        #expect(written.contains("first.wav: "), "written: \(written.debugDescription)")
    }
}
