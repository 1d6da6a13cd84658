import Foundation
import SpeakKit
import Testing

/// `speak` played through ALSA into a real PulseAudio daemon, and what the speaker heard.
@Suite(.serialized)
final class PlaybackTests {
    let server: AudioServer
    let scratch: URL

    init() throws {
        server = try AudioServer()
        scratch = server.directory
    }

    @Test(
        "every syllable is heard, and speak returns only after the last one",
        arguments: [
            ["Build passed."],
            ["-v", "nadia", "Na gode! Mun karɓi saƙonku."],
            ["-v", "oliver", "-r", "220", "The quick brown fox jumps over the lazy dog, and then it rests."],
        ])
    func everySyllableIsHeard(arguments: [String]) throws {
        let reference = try server.synthesised(arguments)
        let mark = server.now
        let result = try Speak.run(arguments, environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        try server.waitUntilHeard(through: result.exitTime)
        let recording = server.heard(since: mark)
        try server.expectHeardWhole(reference, in: recording)
        let span = try server.heardSpan(recording)
        // The sink wrote the last audible sample before speak exited: it waited for the drain.
        #expect(recording.time(ofSample: span.upperBound) <= result.exitTime)
    }

    @Test("an MP3 file plays whole through the same player")
    func playsMP3File() throws {
        let file = scratch.appendingPathComponent("reply.mp3")
        let written = try Speak.run(["-o", file.path, "Your reply is ready."])
        try #require(written.status == 0, "\(written.stderr)")
        let decoded = try PCMBuffer(audio: Data(contentsOf: file))
        let mark = server.now
        let result = try Speak.run([file.path], environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        try server.waitUntilHeard(through: result.exitTime)
        try server.expectHeardWhole(decoded, in: server.heard(since: mark))
    }

    @Test("two speak processes started at once take turns")
    func takeTurns() throws {
        let first = ["One, two, three, four."]
        let second = ["-v", "ava", "Five, six, seven, eight."]
        let together = try server.synthesisedSpan(first) + server.synthesisedSpan(second)
        let mark = server.now
        let a = try Speak.start(first, environment: server.environment)
        let b = try Speak.start(second, environment: server.environment)
        #expect(a.wait().status == 0)
        let last = b.wait()
        #expect(last.status == 0)
        try server.waitUntilHeard(through: last.exitTime)
        let heard = Double(try server.heardSpan(server.heard(since: mark)).count) / Double(AudioServer.sampleRate)
        // Talking over each other would overlap the two and hear less than both in a row.
        #expect(heard >= together, "heard \(heard) s for \(together) s of speech")
    }

    @Test("Ctrl-C stops the sound within 100 ms, and speak ends by SIGINT so a shell loop stops too")
    func interruptStopsSound() throws {
        let mark = server.now
        let speaking = try Speak.start(
            ["This sentence is long enough to be interrupted well before its end, so keep talking for a while."],
            environment: server.environment)
        try server.waitForSound(since: mark)
        // Interrupted mid-sentence: once 0.3 s of it has been heard.
        try server.waitUntilHeard(through: ProcessInfo.processInfo.systemUptime)
        let interrupted = ProcessInfo.processInfo.systemUptime
        speaking.send(SIGINT)
        let result = speaking.wait()
        #expect(result.signal == SIGINT, "exit status \(result.status)")
        try server.waitUntilHeard(through: result.exitTime)
        let recording = server.heard(since: mark)
        let last = try server.heardSpan(recording).upperBound
        #expect(recording.time(ofSample: last) <= interrupted + 0.1, "sound went on after Ctrl-C")
    }

    @Test("started with Ctrl-C ignored (a script's `speak &`), speak keeps ignoring it and speaks to the end")
    func keepsInterruptIgnored() throws {
        let text = "Started in the background, this goes on when the job in the foreground is interrupted."
        let reference = try server.synthesised([text])
        let mark = server.now
        let speaking = try Subprocess(
            "/bin/sh", ["-c", "trap '' INT; exec \"$0\" \"$1\"", Speak.executable, text],
            environment: server.environment)
        try server.waitForSound(since: mark)
        speaking.send(SIGINT)
        let result = speaking.wait()
        #expect(result.status == 0, "signal \(result.signal ?? 0): \(result.stderr)")
        try server.waitUntilHeard(through: result.exitTime)
        try server.expectHeardWhole(reference, in: server.heard(since: mark))
    }

    @Test("--no-wait fails with 'device busy' while another speak is playing")
    func busyWithoutWaiting() throws {
        let mark = server.now
        let speaking = try Speak.start(
            ["Hold the line while another speaker tries to cut in."], environment: server.environment)
        try server.waitForSound(since: mark)
        let result = try Speak.run(["--no-wait", "Me too!"], environment: server.environment)
        #expect(result.status == 75)
        #expect(result.stderr.hasPrefix("speak: device busy"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        speaking.send(SIGINT)
        #expect(speaking.wait().signal == SIGINT)
    }

    func heardSeconds(since mark: Listener.Mark, through time: TimeInterval) throws -> Double {
        try server.waitUntilHeard(through: time)
        return Double(try server.heardSpan(server.heard(since: mark)).count) / Double(AudioServer.sampleRate)
    }

    @Test("speak --remote plays on the server's device through POST /play, and returns once heard")
    func remotePlay() throws {
        let service = try RunningServer(environment: server.environment)
        let arguments = ["Spoken on another machine."]
        let expected = try server.synthesisedSpan(arguments)
        let mark = server.now
        let result = try Speak.run(["--remote", service.url, "--token", service.token] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let recording = server.heard(since: mark)
        let span = try server.heardSpan(recording)
        #expect(recording.time(ofSample: span.upperBound) <= result.exitTime)
        #expect(abs(try heardSeconds(since: mark, through: result.exitTime) - expected) <= 0.020)

        let refused = try Speak.run(["--remote", service.url, "--token", "wrong", "Hi"])
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("refused the token"))
    }

    @Test("speak --cache plays a repeated reply from the cache speak serve shares")
    func cachedConfirmation() throws {
        var environment = server.environment
        environment["XDG_CACHE_HOME"] = scratch.appendingPathComponent("cache-home").path
        let cache = scratch.appendingPathComponent("cache-home/speak")
        let first = try Speak.run(["--cache", "Build passed."], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let entries = try FileManager.default.contentsOfDirectory(at: cache, includingPropertiesForKeys: nil).filter {
            !$0.lastPathComponent.hasPrefix(".")
        }
        try #require(entries.count == 1)
        // Swap the cached reply for a longer one: the second run must play what the cache holds.
        let other = scratch.appendingPathComponent("other.mp3")
        #expect(try Speak.run(["-o", other.path, "This reply came from the cache, not from espeak-ng."]).status == 0)
        try ReplyCache.writeEntry(Data(contentsOf: other), to: entries[0])
        let cached = try PCMBuffer(audio: Data(contentsOf: other))
        let mark = server.now
        let second = try Speak.run(["--cache", "Build passed."], environment: environment)
        #expect(second.status == 0)
        try server.waitUntilHeard(through: second.exitTime)
        try server.expectHeardWhole(cached, in: server.heard(since: mark))
    }
}
