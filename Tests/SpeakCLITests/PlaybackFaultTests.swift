import Foundation
import SpeakKit
import Testing

/// `speak --play` on odd files and stalled devices (issue 11, item 2): a damaged header is refused
/// at once, and Ctrl-C or SIGTERM stop playback promptly whatever the device does.
@Suite("speak --play on odd files and stalled devices", .serialized)
final class PlaybackFaultTests {
    let server: AudioServer

    init() throws {
        server = try AudioServer()
    }

    /// Waits for `process` at most `seconds`; past that it is killed, and `nil` returned.
    static func wait(_ process: Subprocess, seconds: Double) -> Subprocess.Result? {
        let done = DispatchSemaphore(value: 0)
        let box = Locked<Subprocess.Result?>(nil)
        Thread.detachNewThread {
            let result = process.wait()
            box.withLock { $0 = result }
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .success { return box.withLock { $0 } }
        process.send(SIGKILL)
        done.wait()
        return nil
    }

    static func suspend(_ suspended: Bool, environment: [String: String]) throws -> Bool {
        let arguments = ["suspend-sink", "speaker", suspended ? "1" : "0"]
        return try Subprocess.run("/usr/bin/pactl", arguments, environment: environment).status == 0
    }

    static func sinkSuspended(environment: [String: String]) throws -> Bool {
        let sinks = try Subprocess.run("/usr/bin/pactl", ["list", "sinks", "short"], environment: environment)
        let speaker = sinks.stdout.split(separator: "\n").first { $0.contains("\tspeaker\t") }
        return speaker?.hasSuffix("SUSPENDED") == true
    }

    /// Waits until the sink reports itself suspended and the player hands the sound server
    /// nothing more: its bytes written unchanged since the last look, and every one of its threads
    /// asleep in poll, waiting for room the device no longer makes.
    static func waitUntilStalled(_ pid: pid_t, environment: [String: String]) throws {
        var lastWritten: Int?
        try poll("the player to stall on the suspended sink", seconds: 10) {
            guard try sinkSuspended(environment: environment) else { return false }
            let io = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
            let written = io.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap {
                Int($0.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
            }
            defer { lastWritten = written }
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
            let waiting = tasks.allSatisfy { task in
                let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
                return wchan.contains("poll")
            }
            return waiting && written != nil && written == lastWritten
        }
    }

    /// `seconds` of a 440 Hz tone at 8 kHz as a WAV, with its rate field claiming `claimedRate`.
    func tone(seconds: Int, claimedRate: Int = 8000) throws -> URL {
        let samples = (0..<8000 * seconds).map { Int16(8000 * sin(Double($0) * .pi * 440 / 4000)) }
        var wav = WAV.encode(PCMBuffer(sampleRate: 8000, samples: samples))
        for byte in 0..<4 { wav[24 + byte] = UInt8(truncatingIfNeeded: claimedRate >> (8 * byte)) }
        let file = server.directory.appendingPathComponent("tone-\(claimedRate).wav")
        try wav.write(to: file)
        return file
    }

    @Test("a WAV claiming 1 Hz is refused at once with exit 65, not played for hours")
    func oneHertz() throws {
        let file = try tone(seconds: 2, claimedRate: 1)
        let playing = try Speak.start(["--play", file.path], environment: server.environment)
        let result = try #require(Self.wait(playing, seconds: 10), "speak --play still played a 1 Hz file after 10 s")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("sample rate 1 Hz"), "\(result.stderr)")
    }

    @Test(
        "Ctrl-C and SIGTERM stop playback while the device takes no samples",
        arguments: [SIGINT, SIGTERM])
    func stalledDevice(signal: Int32) throws {
        let file = try tone(seconds: 30)
        let mark = server.now
        let playing = try Speak.start(["--play", file.path], environment: server.environment)
        try server.waitForSound(since: mark)
        // A suspended sink takes nothing more: the player's writes find the buffer full and stay so.
        try #require(try Self.suspend(true, environment: server.environment))
        defer { _ = try? Self.suspend(false, environment: server.environment) }
        try Self.waitUntilStalled(playing.pid, environment: server.environment)
        playing.send(signal)
        // The 10 s only bound the wait: a stop that waited for room in the buffer would never come,
        // as the device takes nothing until the sink resumes, which is after the exit.
        let result = try #require(Self.wait(playing, seconds: 10), "speak ignored the signal on a stalled device")
        #expect(result.signal == signal, "exit status \(result.status): \(result.stderr)")
        #expect(try Self.sinkSuspended(environment: server.environment), "the sink woke: the stop proves nothing")
    }
}
