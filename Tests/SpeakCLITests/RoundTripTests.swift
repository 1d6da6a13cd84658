import Foundation
import SpeakKit
import Testing

/// The voice round trip on real components: one PulseAudio daemon with a speaker (a pipe sink the
/// test listens to) and a microphone (a pipe source the test speaks into).
@Suite("speak ask, record and transcribe --pending", .serialized)
final class RoundTripTests {
    let server: AudioServer
    /// The daemon's environment, with a private spool (`$XDG_DATA_HOME/speak/spool`).
    let environment: [String: String]
    let spool: Spool

    init() throws {
        server = try AudioServer(microphone: true)
        let dataHome = server.directory.appendingPathComponent("data")
        var environment = server.environment
        environment["XDG_DATA_HOME"] = dataHome.path
        self.environment = environment
        spool = Spool(directory: dataHome.appendingPathComponent("speak/spool"))
    }

    /// Waits up to 10 s until the recorder writing into the spool has captured `seconds` of audio
    /// (its file grows as samples arrive).
    func waitForRecording(atLeast seconds: Double) throws {
        let deadline = Date().addingTimeInterval(10)
        var captured = -1.0
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: spool.directory.path)) ?? []
            let sizes = names.filter { $0.hasSuffix(".wav") }.compactMap { name in
                try? FileManager.default.attributesOfItem(
                    atPath: spool.directory.appendingPathComponent(name).path)[.size] as? Int
            }
            if let largest = sizes.max() { captured = Double(largest - 44) / 32000 }
            if captured >= seconds { return }
            usleep(5_000)
        }
        throw RecordingNotStarted(captured: captured)
    }

    struct RecordingNotStarted: Error { let captured: Double }

    /// Waits up to 10 s until the recording in the spool holds sound and then `silence` seconds of
    /// quiet after it: the whole answer has been captured, however far the device lags behind the
    /// microphone (a size that only counts time since the answer was said can run ahead of it).
    func waitForRecordedSound(followedBy silence: Double) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: spool.directory.path)) ?? []
            for name in names where name.hasSuffix(".wav") {
                guard let data = try? Data(contentsOf: spool.directory.appendingPathComponent(name)),
                    data.count > 44
                else { continue }
                let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
                if let last = samples.lastIndex(where: { abs(Int(Int16(littleEndian: $0))) > 1000 }),
                    Double(samples.count - 1 - last) / 16000 >= silence
                {
                    return
                }
            }
            usleep(5_000)
        }
        throw TestFailure("no sound followed by \(silence) s of quiet was recorded")
    }

    /// Speaks `text` into the microphone once `speak ask` has played its prompt and is recording.
    func answer(_ text: String, after prompt: PCMBuffer, since mark: Listener.Mark) throws {
        try server.waitForSound(since: mark)
        try waitForRecording(atLeast: 0)
        server.say([Int16](repeating: 0, count: 3200) + (try Microphone.speech(text)))
    }

    @Test("speak ask speaks the prompt, records the answer until silence, and prints it exactly with --expect")
    func ask() throws {
        let prompt = try server.synthesised(["Deploy to production?"])
        let mark = server.now
        let asking = try Speak.start(
            ["ask", "--expect", "yes|no|cancel", "--json", "Deploy to production?"], environment: environment)
        try answer("no", after: prompt, since: mark)
        let result = asking.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["answer"] as? String == "no")
        try server.expectHeardWhole(prompt, in: server.heard(since: mark))
        #expect(spool.pending.isEmpty)
    }

    @Test("no answer: exit 3, 'no speech heard'")
    func noSpeech() throws {
        let result = try Speak.run(["ask", "--timeout", "1", "Anyone there?"], environment: environment)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr == "speak: no speech heard\n")
    }

    @Test("silence until --max-seconds, shorter than --timeout, is 'no speech heard' too (exit 3); nothing is kept")
    func silenceUntilMaxSeconds() throws {
        let result = try Speak.run(
            ["ask", "--timeout", "5", "--max-seconds", "1", "Anyone there?"], environment: environment)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr == "speak: no speech heard\n")
        #expect(spool.pending.isEmpty)
    }

    @Test("speak ask asks in the default voice (SPEAK_VOICE, or the config file's)")
    func defaultVoice() throws {
        let prompt = try server.synthesised(["-v", "nadia", "Kana nan?"])
        var environment = environment
        environment["SPEAK_VOICE"] = "nadia"
        let mark = server.now
        let result = try Speak.run(["ask", "--timeout", "1", "Kana nan?"], environment: environment)
        #expect(result.status == 3, "\(result.stderr)")
        try server.waitUntilHeard(through: result.exitTime)
        try server.expectHeardWhole(prompt, in: server.heard(since: mark))
    }

    @Test("Ctrl-C while the answer is recorded: nothing printed, speak ends by SIGINT, the answer stays in the spool")
    func interruptedAnswer() throws {
        let mark = server.now
        let asking = try Speak.start(
            ["ask", "--expect", "yes|no|cancel", "--timeout", "30", "--max-seconds", "30", "Ship it?"],
            environment: environment)
        try server.waitForSound(since: mark)
        try waitForRecording(atLeast: 0)
        server.say([Int16](repeating: 0, count: 3200) + (try Microphone.speech("yes")))
        // The whole answer is in the file, and the second of silence that would end it is not.
        try waitForRecordedSound(followedBy: 0.3)
        asking.send(SIGINT)
        let result = asking.wait()
        #expect(result.signal == SIGINT, "exit status \(result.status): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(spool.pending.count == 1)

        let retried = try Speak.run(["transcribe", "--pending", "--expect", "yes|no|cancel"], environment: environment)
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasSuffix(": yes\n"), "\(retried.stdout)")
        #expect(spool.pending.isEmpty)
    }

    @Test("a failing upstream keeps the recording, and transcribe --pending transcribes it later")
    func failingUpstreamKeepsRecording() throws {
        let prompt = try server.synthesised(["Roll back?"])
        let mark = server.now
        let asking = try Speak.start(
            ["ask", "--server", "http://127.0.0.1:9", "--token", "t", "Roll back?"], environment: environment)
        try answer("yes", after: prompt, since: mark)
        let result = asking.wait()
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("the recording is kept"))
        #expect(spool.pending.count == 1)

        let retried = try Speak.run(["transcribe", "--pending", "--expect", "yes|no|cancel"], environment: environment)
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasSuffix(": yes\n"), "\(retried.stdout)")
        #expect(spool.pending.isEmpty)
    }

    @Test("kill -9 during speak record leaves a file in the spool that transcribe --pending transcribes")
    func killedRecording() throws {
        let recording = try Speak.start(["record", "--max-seconds", "30", "--quiet"], environment: environment)
        try waitForRecording(atLeast: 0)
        // A phrase Whisper hears surely: espeak-ng's lone "cancel" is "console" to faster-whisper
        // too, and any answer to it a temperature fallback's sample.
        server.say(try Microphone.speech("Cancel the order.") + [Int16](repeating: 0, count: 16000 * 5))
        // The answer is in the file (and a little silence after it) before the kill.
        try waitForRecordedSound(followedBy: 0.5)
        recording.send(SIGKILL)
        #expect(recording.wait().signal == SIGKILL)
        #expect(spool.pending.count == 1)
        let retried = try Speak.run(
            ["transcribe", "--pending", "--expect", "yes|no|cancel the order"], environment: environment)
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasSuffix(": cancel the order\n"), "\(retried.stdout)")
        #expect(spool.pending.isEmpty)
    }

    @Test("speak record -o writes the answer to a file; Ctrl-C stops and keeps it")
    func recordToFile() throws {
        let output = server.directory.appendingPathComponent("answer.mp3")
        let recording = try Speak.start(["record", "-o", output.path, "--quiet"], environment: environment)
        try waitForRecording(atLeast: 0)
        server.say(try Microphone.speech("yes"))
        try waitForRecordedSound(followedBy: 0.5)
        try waitForRecording(atLeast: 1.2)
        recording.send(SIGINT)
        let result = recording.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let audio = try PCMBuffer(audio: Data(contentsOf: output))
        #expect(audio.sampleRate == 16000 && audio.duration > 1)
        let transcribed = try Speak.run(["transcribe", "--expect", "yes|no", output.path])
        #expect(transcribed.stdout == "yes\n", "\(transcribed.stdout)\(transcribed.stderr)")
    }

    @Test("speak record -o writes through a symlink to its target, and keeps the recording when it cannot write")
    func recordOutputTargets() throws {
        let target = server.directory.appendingPathComponent("target.wav")
        let link = server.directory.appendingPathComponent("link.wav")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let linked = try Speak.run(
            ["record", "--max-seconds", "0.5", "-o", link.path, "--quiet"], environment: environment)
        #expect(linked.status == 0, "\(linked.stderr)")
        // The link stays a link (a rename over it made it a plain file, the target never written).
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try PCMBuffer(audio: Data(contentsOf: target)).duration > 0.4)

        let nowhere = server.directory.appendingPathComponent("missing/answer.wav").path
        let failed = try Speak.run(
            ["record", "--max-seconds", "0.5", "-o", nowhere, "--quiet"], environment: environment)
        #expect(failed.status == 73, "\(failed.stderr)")
        #expect(
            failed.stderr.split(separator: "\n").count == 1 && failed.stderr.contains("kept at"), "\(failed.stderr)")
        #expect(spool.pending.count == 1, "the recording stays in the spool")
        for recording in spool.pending { try FileManager.default.removeItem(at: recording) }

        // A format it cannot write is refused before anything is recorded.
        let ogg = server.directory.appendingPathComponent("answer.ogg").path
        let unknown = try Speak.run(["record", "--max-seconds", "0.5", "-o", ogg, "--quiet"], environment: environment)
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(
            unknown.stderr
                == "speak: cannot tell the format of '\(ogg)': name it .mp3 or .wav, or give --file-format mp3|wav\n")
        #expect(!FileManager.default.fileExists(atPath: ogg) && spool.pending.isEmpty)

        // `-o -` is standard output, WAV unless --file-format says MP3; a name with no extension
        // (/dev/stdout, a FIFO) is WAV too, as it always was.
        for target in ["-", "/dev/stdout"] {
            let piped = server.directory.appendingPathComponent("piped.wav")
            let script = "set -o pipefail; \"$0\" record --max-seconds 0.5 --quiet -o \"$2\" | cat > \"$1\""
            let streamed = try Subprocess.run(
                "/bin/bash", ["-c", script, Speak.executable, piped.path, target], environment: environment)
            #expect(streamed.status == 0, "\(target): \(streamed.stderr)")
            let audio = try PCMBuffer(audio: Data(contentsOf: piped))
            #expect(audio.sampleRate == 16000 && audio.duration > 0.4, "\(target)")
            #expect(spool.pending.isEmpty)
        }

        for seconds in ["inf", "1e300", "nan", "0"] {
            let refused = try Speak.run(["record", "--max-seconds", seconds], environment: environment)
            #expect(refused.status == 64, "\(seconds): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
    }
}
