import Foundation
import SpeakKit
import Testing

/// `--live` on the command line: `speak transcribe --live` playing a spoken file at its own pace,
/// in its three forms (JSON events, plain lines, a rewritten terminal line), and its mistakes.
@Suite("speak transcribe --live")
struct LiveCaptionTests {
    static let sentences = ["The deployment finished without errors.", "We will meet at the train station at noon."]

    /// The sentences spoken one after the other, a second of quiet around each, as a WAV file.
    static let clip: (file: URL, seconds: Double) = {
        let silence = [Int16](repeating: 0, count: Microphone.sampleRate)
        let samples = try! sentences.flatMap { try silence + Microphone.speech($0) } + silence
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("speak-live-\(UUID()).wav")
        try! WAV.encode(PCMBuffer(sampleRate: Microphone.sampleRate, samples: samples)).write(to: file)
        // Shared by the suite's tests, so it goes when the test process ends (CI's clean-tmp checks).
        atexit { unlink(LiveCaptionTests.clip.file.path) }
        return (file, Double(samples.count) / Double(Microphone.sampleRate))
    }()

    /// The small model keeps these quick; what is shown does not depend on which.
    static func transcribe(_ flags: [String]) throws -> Subprocess.Result {
        try Speak.run(["transcribe", "--live", "--model", "tiny.en", "--language", "en"] + flags + [clip.file.path])
    }

    /// Lowercase words without punctuation.
    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// Whether `heard` is `sentence` with no word lost or added, and at most one heard differently
    /// (Whisper may guess at a turn's first word while the decodes that agreed on it heard little).
    static func matches(_ heard: String, _ sentence: String) -> Bool {
        let (got, want) = (words(heard), words(sentence))
        return got.count == want.count && zip(got, want).filter { $0 != $1 }.count <= 1
    }

    @Test("--json: each turn's partial and final events come before its completed one, finals append to its text")
    func jsonEvents() throws {
        let started = ProcessInfo.processInfo.systemUptime
        let result = try Self.transcribe(["--json"])
        let elapsed = ProcessInfo.processInfo.systemUptime - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let events = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
        var completed: [String] = []
        var finals: [String] = []
        var shownBefore = false
        var lastTime = 0.0
        for event in events {
            let type = try #require(event["type"] as? String)
            let time = try #require(event["time"] as? Double, "\(event)")
            #expect(time >= lastTime && time <= Self.clip.seconds + 0.01, "\(event)")
            lastTime = time
            switch type {
            case "speech_started", "speech_stopped": #expect((event["start"] ?? event["end"]) is Double, "\(event)")
            case "partial":
                if let text = event["text"] as? String, !text.isEmpty { shownBefore = true }
            case "final":
                finals.append(try #require(event["text"] as? String))
                shownBefore = true
            case "completed":
                let text = try #require(event["text"] as? String)
                #expect(shownBefore, "no words were shown before the turn ended: \(text)")
                #expect(finals.joined(separator: " ") == text, "the final events are the turn's text, appended")
                let (start, end) = (try #require(event["start"] as? Double), try #require(event["end"] as? Double))
                #expect(start < end && end <= time, "\(event)")
                completed.append(text)
                (finals, shownBefore) = ([], false)
            default: Issue.record("unknown event \(event)")
            }
        }
        #expect(completed.count == Self.sentences.count, "\(completed)")
        for (heard, sentence) in zip(completed, Self.sentences) {
            #expect(Self.matches(heard, sentence), "heard \"\(heard)\" for \"\(sentence)\"")
        }
        // The first sentence was captioned with the second still to come, and the file took the
        // time it takes to say (a lower bound only: a loaded machine is slower, never faster).
        let first = try #require(events.first { $0["type"] as? String == "completed" })
        #expect(try #require(first["time"] as? Double) < Self.clip.seconds - 2)
        #expect(elapsed >= Self.clip.seconds - 0.1, "played \(Self.clip.seconds) s of audio in \(elapsed) s")
    }

    @Test("into a pipe: one plain line per turn and nothing else")
    func plainLines() throws {
        let result = try Self.transcribe([])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(!result.stdout.contains("\r") && !result.stdout.contains("\u{1B}"), "\(result.stdout.debugDescription)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(result.stdout.hasSuffix("\n") && lines.count == Self.sentences.count, "\(result.stdout)")
        for (line, sentence) in zip(lines, Self.sentences) {
            #expect(Self.matches(String(line), sentence), "\(line)")
        }
    }

    @Test("on a terminal the line is rewritten as words come, the partial ones dimmed, and a turn ends its line")
    func terminal() throws {
        // script(1) gives the command a terminal and copies what it shows.
        let command = [Speak.executable, "transcribe", "--live", "--model", "tiny.en", Self.clip.file.path]
            .map { "'\($0)'" }.joined(separator: " ")
        let result = try Subprocess.run("/usr/bin/script", ["-qefc", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let shown = result.stdout
        let rewrites = shown.components(separatedBy: "\r\u{1B}[K").count - 1
        #expect(rewrites > Self.sentences.count * 2, "the line was rewritten \(rewrites) times")
        #expect(shown.contains("\u{1B}[2m"), "no dimmed partial words: \(shown.debugDescription)")
        // What stays on the screen: each line as its last rewrite left it (the terminal ends
        // lines with \r\n).
        let lines = shown.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map {
            String($0.components(separatedBy: "\r\u{1B}[K").last!)
        }
        #expect(lines.count == Self.sentences.count, "\(lines)")
        for (line, sentence) in zip(lines, Self.sentences) {
            #expect(!line.contains("\u{1B}") && Self.matches(line, sentence), "\(line.debugDescription)")
        }
    }

    @Test("--live's mistakes are one-line usage errors; audio it cannot read is refused before anything is shown")
    func mistakes() throws {
        let file = Self.clip.file.path
        for (arguments, message) in [
            (["transcribe", "--live", file, file], "--live takes one file"),
            (["transcribe", "--live", "--pending"], "--live takes one file"),
            (["transcribe", "--live", "--format", "srt", file], "--live prints captions, not --format srt"),
            (["transcribe", "--live", "-o", "/tmp/x.txt", file], "--live prints to standard output"),
            (["transcribe", "--live", "--progress", file], "--live prints to standard output"),
            (["record", "--json"], "go with --live"),
            (["record", "--model", "base"], "go with --live"),
        ] {
            let result = try Speak.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("speak: ") && result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stderr)")
        }
        let notAudio = try Speak.run(["transcribe", "--live", "--json", #filePath])
        #expect(notAudio.status == 65 && notAudio.stdout.isEmpty, "\(notAudio.stdout)\(notAudio.stderr)")
        #expect(notAudio.stderr.split(separator: "\n").count == 1, "\(notAudio.stderr)")
        for command in ["transcribe", "record", "ask"] {
            #expect(try Speak.run([command, "--help"]).stdout.contains("--live"), "speak \(command) --help")
        }
    }
}

extension RoundTripTests {
    @Test("speak record --live --json captions the microphone as it is spoken; the recording leaves the spool")
    func recordLive() throws {
        let sentence = LiveCaptionTests.sentences[1]
        let recording = try Speak.start(
            ["record", "--live", "--json", "--model", "tiny.en", "--language", "en"], environment: environment)
        try waitForRecording(atLeast: 0)
        server.say(try Microphone.speech(sentence))
        // The turn ends at a pause: its caption comes while the recording goes on.
        try poll("the turn's caption") { recording.stdoutSoFar.contains(#""type":"completed""#) }
        recording.send(SIGINT)
        let result = recording.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let events = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
        let types = events.compactMap { $0["type"] as? String }
        let completed = try #require(types.firstIndex(of: "completed"), "\(types)")
        #expect(types[..<completed].contains("partial") && types[..<completed].contains("final"), "\(types)")
        let text = try #require(events[completed]["text"] as? String)
        #expect(LiveCaptionTests.matches(text, sentence), "heard \"\(text)\"")
        #expect(spool.pending.isEmpty, "a captioned recording is transcribed: it leaves the spool")
    }
}
