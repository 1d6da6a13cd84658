import Foundation
import SpeakKit
import Testing

/// `speak transcribe` on the sample files, locally and through another `speak serve`.
@Suite("speak transcribe")
struct TranscribeCommandTests {
    static let samples = TranscriptionServerTests.samples

    @Test("files in several formats, with --expect and --json")
    func localFiles() throws {
        let files = ["yes.m4a", "yes.webm", "yes.flac"].map { Self.samples.appendingPathComponent($0).path }
        let result = try Speak.run(["transcribe", "--expect", "yes please do that|no|cancel", "--json"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for (line, file) in zip(lines, files) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["text"] as? String == "yes please do that")
            #expect(object["file"] as? String == file)
            #expect(abs((object["duration"] as? Double ?? 0) - 1.7) < 0.1)
        }
    }

    @Test("a pipe is read as a file: /dev/stdin")
    func pipe() throws {
        let audio = try Data(contentsOf: Self.samples.appendingPathComponent("yes.m4a"))
        for file in ["/dev/stdin", "-"] {
            let result = try Speak.run(["transcribe", "--expect", "yes please do that|no", file], input: audio)
            #expect(result.status == 0, "\(file): \(result.stderr)")
            #expect(result.stdout == "yes please do that\n", "\(file): \(result.stdout)")
        }
    }

    @Test("several files: each line names its file, a failing one is reported and the rest go on")
    func severalFiles() throws {
        let files = ["yes.m4a", "missing.wav", "yes.flac"].map { Self.samples.appendingPathComponent($0).path }
        let result = try Speak.run(["transcribe", "--expect", "yes please do that|no"] + files)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(
            result.stdout == "\(files[0]): yes please do that\n\(files[2]): yes please do that\n", "\(result.stdout)")
        #expect(result.stderr == "speak: cannot read \(files[1]): No such file or directory\n", "\(result.stderr)")
    }

    @Test("--format srt and vtt print one file's subtitles; -o gets them whole, and keeps its file on a failure")
    func subtitles() throws {
        let file = Self.samples.appendingPathComponent("yes.m4a").path
        let srt = try Speak.run(["transcribe", "--model", "base", "--language", "en", "--format", "srt", file])
        #expect(srt.status == 0, "\(srt.stderr)")
        #expect(srt.stdout.hasPrefix("1\n00:00:00,000 --> 00:00:01,"), "\(srt.stdout)")
        #expect(srt.stdout.lowercased().contains("yes, please do"), "\(srt.stdout)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subtitles-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let vttFile = directory.appendingPathComponent("yes.vtt").path
        let vtt = try Speak.run(["transcribe", "--model", "base", "--format", "vtt", "-o", vttFile, file])
        #expect(vtt.status == 0 && vtt.stdout.isEmpty, "\(vtt.stderr)")
        let written = try String(contentsOfFile: vttFile, encoding: .utf8)
        #expect(written.hasPrefix("WEBVTT\n\n00:00:00.000 --> 00:00:01."), "\(written)")
        // Not audio: an error, and the subtitles already there stay.
        let damaged = try Speak.run([
            "transcribe", "--format", "vtt", "-o", vttFile, Self.samples.appendingPathComponent("../README.md").path,
        ])
        #expect(damaged.status == 65, "\(damaged.stderr)")
        #expect(try String(contentsOfFile: vttFile, encoding: .utf8) == written)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["yes.vtt"])
        let several = try Speak.run(["transcribe", "--format", "srt", file, file])
        #expect(several.status == 64 && several.stderr.contains("takes one file"), "\(several.stderr)")
    }

    @Test("--translate, --prompt, --temperature and --threads reach Whisper; bad values are usage errors")
    func whisperOptions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("options-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func espeak(_ text: String, voice: String, name: String) throws -> String {
            let file = directory.appendingPathComponent(name).path
            let made = try Subprocess.run("/usr/bin/espeak-ng", ["-v", voice, "-s", "165", "-w", file, text])
            #expect(made.status == 0, "\(made.stderr)")
            return file
        }
        let german = try espeak(
            "Guten Morgen. Das Wetter ist heute sehr schön, und wir gehen in den Park.", voice: "de", name: "de.wav")
        let plain = try Speak.run(["transcribe", "--model", "base", german])
        #expect(plain.stdout.hasPrefix("Guten Morgen"), "\(plain.stdout)\(plain.stderr)")
        let english = try Speak.run(["transcribe", "--model", "base", "--translate", "--threads", "1", german])
        #expect(english.status == 0, "\(english.stderr)")
        #expect(english.stdout.lowercased().hasPrefix("good morning"), "\(english.stdout)")
        let name = try espeak("I had lunch with Kaylee Brennan today.", voice: "en-us", name: "lunch.wav")
        let prompted = try Speak.run([
            "transcribe", "--model", "tiny.en", "--prompt", "Lunch with Caleigh Brennan.", "--temperature", "0", name,
        ])
        #expect(prompted.stdout.contains("Caleigh"), "\(prompted.stdout)\(prompted.stderr)")
        for bad in [
            ["--temperature", "1.5", name], ["--threads", "0", name], ["--format", "docx", name], ["--prompt"],
        ] {
            let refused = try Speak.run(["transcribe"] + bad)
            #expect(refused.status == 64 && refused.stderr.hasPrefix("speak: \(bad[0])"), "\(bad): \(refused.stderr)")
        }
    }

    @Test("free dictation prints some of the words")
    func dictation() throws {
        let result = try Speak.run(["transcribe", Self.samples.appendingPathComponent("yes.wav").path])
        #expect(result.status == 0)
        let heard = result.stdout.lowercased()
        #expect(heard.contains("yes") || heard.contains("that"), "\(result.stdout)")
    }

    @Test("bad input: not audio 65, missing or a directory 66, unknown word in --expect 64, no files 64")
    func badInput() throws {
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID()).txt")
        try Data("not audio".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        let cases: [([String], Int32, String)] = [
            ([text.path], 65, "not an audio file"),
            (["/nonexistent.wav"], 66, "cannot read /nonexistent.wav"),
            ([Self.samples.path], 66, "Is a directory"),
            // A dictionary word check is pocketsphinx's: Whisper has no words it cannot hear.
            (
                [
                    "--engine", "pocketsphinx", "--expect", "yes|flibbertyzork",
                    Self.samples.appendingPathComponent("yes.wav").path,
                ], 64, "flibbertyzork"
            ),
            ([], 64, "no files to transcribe"),
            (["--server", "notaurl", "x.wav"], 64, "needs an http:// or https:// URL"),
            (["--", "-x.wav"], 66, "cannot read -x.wav"),
        ]
        for (arguments, status, message) in cases {
            let result = try Speak.run(["transcribe"] + arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("--server transcribes through another speak serve; a wrong token is not retried and says so")
    func throughServer() throws {
        let server = try RunningServer()
        let file = Self.samples.appendingPathComponent("yes.ogg").path
        let result = try Speak.run([
            "transcribe", "--server", server.url, "--token", server.token, "--expect", "yes please do that|no", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "yes please do that\n")
        let refused = try Speak.run(["transcribe", "--server", server.url, "--token", "wrong", file])
        #expect(refused.status == 6)
        #expect(refused.stderr.hasPrefix("speak: transcription failed"))
        #expect(!refused.stderr.contains("wrong"))
        // The server's reason for a 400 comes through, and it is a usage error, as it is locally.
        let language = try Speak.run([
            "transcribe", "--server", server.url, "--token", server.token, "--language", "xx", file,
        ])
        #expect(language.status == 64, "\(language.stderr)")
        #expect(
            language.stderr == "speak: transcription failed: the upstream rejected the request: unknown language 'xx'\n"
        )
    }

    @Test("--progress draws a bar that rises window by window to 100 % on a recording over 30 s")
    func progress() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("walk.wav").path
        let sentence = "The nightly backup finished successfully and the reports were sent to the whole team. "
        let made = try Speak.run(["-o", file, String(repeating: sentence, count: 10)])
        #expect(made.status == 0, "\(made.stderr)")
        let result = try Speak.run(["transcribe", "--engine", "whisper", "--model", "tiny.en", "--progress", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.lowercased().contains("backup"), "\(result.stdout)")
        // Not a terminal: one line per step, e.g. "walk.wav [###############...............]  50%".
        let percents = result.stderr.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(file), line.hasSuffix("%") else { return nil }
            return Int(line.dropLast().split(separator: " ").last ?? "")
        }
        #expect(percents.count >= 2, "\(result.stderr)")
        #expect(percents.last == 100)
        #expect(percents == percents.sorted() && Set(percents).count == percents.count)
        #expect(percents.first.map { $0 < 100 } == true)
    }
}
