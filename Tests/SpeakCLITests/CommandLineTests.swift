import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// The `speak` binary's manners: listings, files, and one clear line for every kind of bad input.
@Suite("speak on the command line")
final class CommandLineTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// An environment with no audio server at all: ALSA's `default` has nothing to play on.
    var silentMachine: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = scratch.path
        environment["PULSE_SERVER"] = "unix:\(scratch.path)/no-such-server"
        environment["HOME"] = scratch.path
        return environment
    }

    @Test("-v '?' lists every voice as say does: name, language, # description")
    func listsVoices() throws {
        let result = try Speak.run(["-v", "?"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        let shipped = try FileManager.default.contentsOfDirectory(atPath: VoiceCatalog.shippedDirectory()!.path).filter
        { $0.hasSuffix(".json") }
        #expect(lines.count == shipped.count)
        let nadia = try #require(lines.first { $0.hasPrefix("nadia ") })
        #expect(nadia.contains(" ha ") && nadia.contains("# "))
        #expect(lines.contains { $0.hasPrefix("default ") })
    }

    @Test("a voice file in --voices-dir or SPEAK_VOICES is listed and speaks")
    func userVoiceDirectory() throws {
        try Data(
            (#"{"name":"robo","language":"en","espeakVoice":"en","variant":"klatt","rate":120,"pitch":10,"#
                + #""description":"Beep boop."}"#).utf8
        )
        .write(to: scratch.appendingPathComponent("robo.json"))
        let listed = try Speak.run(["--voices-dir", scratch.path, "-v", "?"])
        #expect(listed.stdout.contains("robo"))
        var environment = ProcessInfo.processInfo.environment
        environment["SPEAK_VOICES"] = scratch.path
        let output = scratch.appendingPathComponent("robo.wav")
        let spoken = try Speak.run(["-v", "robo", "-o", output.path, "Beep boop"], environment: environment)
        #expect(spoken.status == 0, "\(spoken.stderr)")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.3)
    }

    @Test("a voice file naming an engine speak does not have is one error line and 65, not an exec loop")
    func unknownEngine() throws {
        try Data(#"{"name":"robot","language":"en","engine":"festival"}"#.utf8)
            .write(to: scratch.appendingPathComponent("robot.json"))
        let output = scratch.appendingPathComponent("robot.wav").path
        // Under timeout: the light speak handed it to speak-full, which handed it to itself forever.
        let result = try Subprocess.run(
            "/usr/bin/timeout",
            ["20", Speak.executable, "--voices-dir", scratch.path, "-v", "robot", "-o", output, "Hi"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr
                == "speak: voice 'robot' names the engine 'festival', which speak does not have "
                + "(it has espeak, piper, upstream)\n")
    }

    @Test("--cache whose directory cannot be made: spoken all the same, one warning line")
    func unmakeableCache() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = "/dev/null"
        let output = scratch.appendingPathComponent("uncached.wav")
        let result = try Speak.run(["--cache", "-o", output.path, "Spoken anyway."], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "speak: reply cache off: mkdir /dev/null/speak: Not a directory\n")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.5)
    }

    @Test(
        "a voice file with wrong settings is one plain line and 65",
        arguments: [
            (
                #"{"name":"x","language":"en","espeak":{"voice":"nosuchvoice"}}"#,
                "voice 'x' has invalid 'espeak' settings: espeak-ng has no voice 'nosuchvoice' "
                    + "(espeak-ng --voices lists them)"
            ),
            (
                #"{"name":"x","language":"en","engine":"piper","piper":{"model":"joe.onnx","speaker":"1"}}"#,
                "voice 'x' has invalid 'piper' settings: 'speaker' must be a whole number"
            ),
            (
                #"{"name":"x","language":"en","engine":"piper","piper":{"speaker":1}}"#,
                "voice 'x' has invalid 'piper' settings: missing 'model'"
            ),
        ])
    func wrongVoiceSettings(file: String, message: String) throws {
        let voices = scratch.appendingPathComponent("wrong-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        try Data(file.utf8).write(to: voices.appendingPathComponent("x.json"))
        let output = scratch.appendingPathComponent("wrong.wav").path
        let result = try Speak.run(["--voices-dir", voices.path, "-v", "x", "-o", output, "Hi"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr == "speak: \(message)\n")
    }

    /// The espeak-ng names the shipped voices had before they named their files, which espeak-ng
    /// finds by searching every voice file.
    static let searchedNames = [
        "gmw/en-US": "en-us", "gmw/en-GB-x-rp": "en-gb-x-rp", "gmw/de": "de", "roa/fr": "fr", "bnt/sw": "sw",
    ]

    @Test("a shipped voice, read from its own espeak-ng file, sounds as the name espeak-ng searches for does")
    func voiceFilesSoundAsSearchedNames() throws {
        // espeak-ng carries state from one utterance to the next: each is its own process.
        let shipped = VoiceCatalog.shippedDirectory()!
        var compared = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: shipped.path) where file.hasSuffix(".json") {
            var json = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: shipped.appendingPathComponent(file)))
                    as? [String: Any])
            guard let identifier = json["espeakVoice"] as? String else { continue }
            let searched = try #require(Self.searchedNames[identifier], "\(file): \(identifier)")
            let name = try #require(json["name"] as? String)
            json["name"] = name + "-searched"
            json["espeakVoice"] = searched
            try JSONSerialization.data(withJSONObject: json).write(to: scratch.appendingPathComponent(file))
            for flags in [[], ["--ssml"]] {
                func render(_ voice: String) throws -> Data {
                    let output = scratch.appendingPathComponent("\(voice).wav")
                    let text =
                        flags.isEmpty
                        ? "Build passed, at 10:42." : #"<speak>Build passed. <s xml:lang="fr">Bonjour.</s></speak>"#
                    let result = try Speak.run(
                        ["--voices-dir", scratch.path, "-v", voice, "-o", output.path] + flags + [text])
                    #expect(result.status == 0, "\(result.stderr)")
                    return try Data(contentsOf: output)
                }
                let byFile = try render(name)
                let bySearch = try render(name + "-searched")
                #expect(byFile.count > 20_000 && byFile == bySearch, "\(name) \(flags)")
                compared += 1
            }
        }
        #expect(compared == 2 * 7)
    }

    @Test("-a '?' lists playback devices as aplay -L does")
    func listsDevices() throws {
        let result = try Speak.run(["-a", "?"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "null")
        #expect(lines.dropFirst().first?.hasPrefix("    ") == true)
    }

    @Test("--phonemes and --ipa print what espeak-ng would say", arguments: [("-x", "k'aRbi"), ("--ipa", "kˈarbi")])
    func phonemes(flag: String, expected: String) throws {
        let result = try Speak.run(["-v", "nadia", flag, "Na gode! Mun karɓi saƙonku."])
        #expect(result.status == 0)
        #expect(result.stdout.contains(expected), "\(result.stdout)")
    }

    @Test("-o writes MP3 or WAV by extension or --file-format, with the MP3 settings asked for")
    func writesFiles() throws {
        let cases: [(arguments: [String], file: String, rate: Int)] = [
            ([], "a.mp3", 22050), ([], "a.wav", 22050), (["--file-format", "mp3"], "a.reply", 22050),
            (["--sample-rate", "16000", "--bitrate", "32"], "b.mp3", 16000),
            (["--sample-rate", "24000", "--bitrate", "64"], "c.mp3", 24000),
        ]
        for (arguments, file, rate) in cases {
            let output = scratch.appendingPathComponent(file)
            let result = try Speak.run(arguments + ["-o", output.path, "Written, not spoken."])
            #expect(result.status == 0, "\(result.stderr)")
            let data = try Data(contentsOf: output)
            let pcm = try PCMBuffer(audio: data)
            #expect(pcm.sampleRate == rate, "\(file)")
            #expect(pcm.duration > 0.8 && pcm.duration < 3, "\(file)")
            #expect(WAV.isWAV(data) == (file == "a.wav"))
        }
        // Nothing temporary left beside the outputs.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.hasPrefix(".speak-") })
    }

    @Test("text comes from arguments, -f FILE, -f - and a pipe alike")
    func textSources() throws {
        let text = "Same words every way."
        let file = scratch.appendingPathComponent("words.txt")
        try Data(text.utf8).write(to: file)
        var durations: [Double] = []
        for (arguments, input) in [
            ([text], nil), (["-f", file.path], nil), (["-f", "-"], Data(text.utf8)), ([], Data(text.utf8)),
        ] as [([String], Data?)] {
            let output = scratch.appendingPathComponent("\(durations.count).wav")
            let result = try Speak.run(arguments + ["-o", output.path], input: input)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            durations.append(try PCMBuffer(audio: Data(contentsOf: output)).duration)
        }
        #expect(Set(durations).count == 1, "\(durations)")
    }

    @Test("--ssml honours markup; without it the markup is not obeyed")
    func ssml() throws {
        let markup = "<speak>Wait <break time=\"1500ms\"/> for it.</speak>"
        let withSSML = scratch.appendingPathComponent("ssml.wav")
        let plain = scratch.appendingPathComponent("plain.wav")
        #expect(try Speak.run(["--ssml", "-o", withSSML.path, markup]).status == 0)
        #expect(try Speak.run(["-o", plain.path, "Wait for it."]).status == 0)
        let pause =
            try PCMBuffer(audio: Data(contentsOf: withSSML)).duration
            - PCMBuffer(audio: Data(contentsOf: plain)).duration
        #expect(pause > 1.2 && pause < 2.0, "the break added \(pause) s")
    }

    @Test("--progress into a log (not a terminal): a bar a line, every 10 %, never going back")
    func progress() throws {
        let text = String(repeating: "This line makes the text long enough to show progress. ", count: 20)
        let result = try Speak.run(["--progress", "-o", scratch.appendingPathComponent("long.mp3").path, text])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r"))
        let percents = result.stderr.split(separator: "\n").map { line in
            Int(line.split(separator: " ").last?.dropLast() ?? "") ?? -1
        }
        #expect(percents.count > 5 && percents.last == 100, "\(result.stderr)")
        #expect(zip(percents, percents.dropFirst()).allSatisfy { $0 / 10 < $1 / 10 }, "\(percents)")
        let quiet = try Speak.run([
            "--progress", "--quiet", "-o", scratch.appendingPathComponent("quiet.mp3").path, text,
        ])
        #expect(quiet.stderr.isEmpty)
    }

    @Test("--help shows usage, examples and exit codes")
    func help() throws {
        let result = try Speak.run(["--help"])
        #expect(result.status == 0)
        for part in ["usage: speak", "examples:", "exit codes:", "-v, --voice", "130"] {
            #expect(result.stdout.contains(part))
        }
    }

    /// Every bad input: the exit code, and one line on stderr that says what to do.
    @Test(
        "bad input gets one clear line and a meaningful exit code",
        arguments: [
            (["Hello"], nil, 64, "unknown voice 'nadai'; did you mean 'nadia'?", ["-v", "nadai"]),
            ([], nil, 64, "no text to speak", []),
            (["   "], nil, 64, "no text to speak", []),
            (["Hi"], nil, 64, "unknown option --rat; did you mean --rate?", ["--rat", "200"]),
            (["Hi"], nil, 64, "--ssml takes no value", ["--ssml=yes"]),
            (["Hi"], nil, 64, "rate (words per minute) must be a whole number from 80 to 450", ["-r", "fast"]),
            (["Hi"], nil, 64, "-o needs a value", ["-o"]),
            (
                ["Hi"], nil, 64, "MP3 sample rate (Hz) must be 16000, 22050 or 24000, not '8000'",
                ["--sample-rate", "8000"]
            ),
            (
                ["Hi"], nil, 64, "MP3 sample rate (Hz) must be 16000, 22050 or 24000, not '20000'",
                ["--sample-rate", "20000"]
            ),
            (
                ["Hi"], nil, 64, "-x and --ipa print phonemes and write no audio: leave out -o",
                ["-x", "-o", "/tmp/reply.wav"]
            ),
            (
                ["Hi"], nil, 64, "-x and --ipa print phonemes and write no audio: leave out -o",
                ["--ipa", "-o", "/tmp/reply.wav"]
            ),
            (["Hi"], nil, 73, "cannot write /nonexistent/dir/reply.mp3", ["-o", "/nonexistent/dir/reply.mp3"]),
            (["Hi"], nil, 73, "cannot write /tmp: it is a directory", ["-o", "/tmp"]),
            (["Hi"], nil, 64, "cannot tell the format of", ["-o", "/tmp/reply.ogx"]),
            ([], nil, 66, "cannot read /nonexistent.txt", ["-f", "/nonexistent.txt"]),
            ([], nil, 66, "cannot read /nonexistent.mp3", ["--play", "/nonexistent.mp3"]),
            (["Hi"], nil, 66, "cannot read voices directory /nonexistent", ["--voices-dir", "/nonexistent"]),
            ([], Data(repeating: 0x61, count: 1 << 20), 65, "text is 1048576 bytes; speak takes at most 524288", []),
            ([], Data([0x48, 0xff, 0xfe, 0x21]), 65, "text is not UTF-8", []),
        ] as [([String], Data?, Int32, String, [String])])
    func badInput(words: [String], input: Data?, status: Int32, message: String, flags: [String]) throws {
        let result = try Speak.run(words + flags, input: input)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("speak: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a hint for an unknown option is the same on every run")
    func steadyHint() throws {
        // `---` is as far from -v as from -a or -f: ties go by name, not by a dictionary's order.
        let hints = try Set((0..<6).map { _ in try Speak.run(["---", "Hi"]).stderr })
        #expect(hints.count == 1, "\(hints)")
    }

    @Test("speak serve --port 0 binds a free port and names it in its listening line")
    func servePortZero() throws {
        let server = try RunningServer(open: true)
        #expect(server.port > 0)
        #expect(server.process.stdoutSoFar.contains("listening on http://127.0.0.1:\(server.port)\n"))
        #expect(WireClient(port: server.port).call("GET", "/health").status == 200)
    }

    /// Each refused before anything starts. (A port check that let 99999 through would start a
    /// server: the voices directory that cannot be read then ends it with 66, not a hang.)
    @Test(
        "speak serve and speak voices refuse bad options in one line",
        arguments: [
            (["serve", "--port", "99999", "--voices-dir", "/nonexistent"], 64, "the port must be 0 to 65535"),
            (["serve", "--hash-token", ""], 64, "--hash-token needs a token"),
            (["serve", "--rate-limit", "0", "--voices-dir", "/nonexistent"], 64, "the rate limit must be at least 1"),
            (["serve", "--tokens", "/nonexistent"], 66, "cannot read tokens file /nonexistent"),
            (["serve", "--config", "/nonexistent.json"], 66, "cannot read config /nonexistent.json"),
            (
                ["serve", "--cache-dir", "/dev/null/replies"], 73,
                "cannot make the reply cache in /dev/null/replies: mkdir /dev/null/replies: Not a directory"
            ),
            (["voices", "install", "--name", "../evil", "/nonexistent.onnx"], 64, "--name must be a plain name"),
            (["voices", "install", "--name", "", "/nonexistent.onnx"], 64, "--name must be a plain name"),
            (["transcribe", "--pending", "/tmp/note.wav"], 64, "--pending retries the spool and takes no files"),
        ] as [([String], Int32, String)])
    func badServeOptions(arguments: [String], status: Int32, message: String) throws {
        let result = try Speak.run(arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a file that is not audio is refused with exit 65", arguments: ["notes.mp3", "notes.wav"])
    func notAudio(name: String) throws {
        let file = scratch.appendingPathComponent(name)
        try Data("Dear diary, this is not audio.\n".utf8).write(to: file)
        for arguments in [[file.path], ["--play", file.path]] {
            let result = try Speak.run(arguments)
            #expect(result.status == 65)
            #expect(
                result.stderr == "speak: \(file.path): not an audio file: neither WAV nor MP3\n"
                    || result.stderr.contains("not an audio file"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("no playback device names the fixes: -a and -o")
    func noDevice() throws {
        for arguments in [["-a", "nosuchdevice", "Hello"], ["Hello"]] {
            let result = try Speak.run(arguments, environment: silentMachine)
            #expect(result.status == 69, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("speak: no playback device"))
            #expect(result.stderr.contains("-a") && result.stderr.contains("-o"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    /// Whether the main thread of `pid` is blocked in system call `number` (x86-64's numbers:
    /// 0 read, 257 openat), on the file `path` when given (the call's first argument, a descriptor).
    static func isBlocked(_ pid: pid_t, inSystemCall number: Int, on path: String? = nil) -> Bool {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
        let fields = line.split(separator: " ")
        guard fields.count > 1, Int(fields[0]) == number else { return false }
        guard let path else { return true }
        guard let descriptor = Int(fields[1].dropFirst(2), radix: 16) else { return false }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")) == path
    }

    @Test("Ctrl-C ends speak while it waits for its text: a FIFO with no writer yet, or one that sends nothing")
    func interruptedWhileWaitingForText() throws {
        let fifo = scratch.appendingPathComponent("text").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for writerOpen in [false, true] {
            // Held open and never written to: speak's read waits.
            let writer = writerOpen ? open(fifo, O_RDWR) : -1
            defer { if writer >= 0 { close(writer) } }
            let waiting = try Speak.start(["-f", fifo, "-o", scratch.appendingPathComponent("never.wav").path])
            try poll("speak to wait for its text", seconds: 10) {
                Self.isBlocked(waiting.pid, inSystemCall: writerOpen ? 0 : 257, on: writerOpen ? fifo : nil)
            }
            waiting.send(SIGINT)
            let result = try #require(PlaybackFaultTests.wait(waiting, seconds: 10), "Ctrl-C did not end the wait")
            #expect(
                result.signal == SIGINT, "writer open: \(writerOpen), exit status \(result.status): \(result.stderr)")
        }
    }

    @Test("an interrupted -o leaves no half-written file, and speak ends by the signal")
    func interruptedWrite() throws {
        let output = scratch.appendingPathComponent("long.mp3")
        let text = String(repeating: "A very long text that takes a while to write out. ", count: 2000)
        let writing = try Speak.start(["-o", output.path], input: Data(text.utf8))
        // Interrupted mid-write: once its temporary file holds some audio.
        try poll("speak to start writing", seconds: 10) {
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).contains { name in
                let path = scratch.appendingPathComponent(name).path
                return name.hasPrefix(".speak-")
                    && ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 0
            }
        }
        writing.send(SIGINT)
        let result = writing.wait()
        #expect(result.signal == SIGINT)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.hasPrefix(".speak-") })
    }
}
