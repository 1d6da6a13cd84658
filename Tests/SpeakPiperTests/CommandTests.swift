import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// The built speak and speak-full with Piper voices, run as a user runs them.
@Suite("Piper from the command line", .serialized)
final class CommandTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    var full: String { Command.products.appendingPathComponent("speak-full").path }
    var light: String { Command.products.appendingPathComponent("speak").path }

    /// The shared libraries a command maps, from the dynamic linker's own account.
    func loaded(_ arguments: [String]) throws -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let result = try Command.run(arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        return result.stderr.split(separator: "\n").filter { $0.contains("calling init:") }.map(String.init)
    }

    @Test("no command loads ONNX Runtime unless a Piper voice speaks")
    func loadsRuntimeOnlyForPiper() throws {
        let output = scratch.appendingPathComponent("x.wav").path
        let runtime = ["libonnxruntime"]
        for command in [
            [light, "-o", output, "Build passed"], [full, "-o", output, "Build passed"], [light, "-v", "?"],
        ] {
            let libraries = try loaded(command)
            #expect(!libraries.isEmpty)
            #expect(!libraries.contains { line in runtime.contains { line.contains($0) } }, "\(command)")
        }
        let piper = try loaded([full, "-v", "joe", "-o", output, "Build passed"])
        #expect(runtime.allSatisfy { name in piper.contains { $0.contains(name) } })
        // Transcription composes Silero VAD, whose session only a live session makes.
        let transcribed = try loaded([full, "transcribe", "--engine", "pocketsphinx", output])
        #expect(!transcribed.contains { line in runtime.contains { line.contains($0) } })
    }

    @Test("a Silero VAD model that cannot be used is said once, and transcription goes on")
    func unusableSilero() throws {
        let models = scratch.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let installed = URL(fileURLWithPath: "/usr/local/share/speak/models/" + SileroModel.fileName)
        let truncated = models.appendingPathComponent(SileroModel.fileName)
        try Data(contentsOf: installed).prefix(4096).write(to: truncated)
        let audio = scratch.appendingPathComponent("x.wav").path
        #expect(try Command.run([full, "-o", audio, "Build passed"]).status == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["SPEAK_MODELS"] = models.path
        let result = try Command.run([full, "transcribe", "--engine", "pocketsphinx", audio], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("Silero") }
        #expect(lines.count == 1 && lines[0].contains(truncated.path), "\(result.stderr)")
    }

    @Test("a Piper voice as shipped, dropped into a models directory, speaks with nothing written anywhere")
    func speaksAsShipped() throws {
        let home = scratch.appendingPathComponent("home")
        let models = scratch.appendingPathComponent("models")
        let voices = scratch.appendingPathComponent("voices")
        for directory in [home, models, voices] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        // The model and its config, no tokens file, no metadata.
        let model = try Joe.original(named: "en_US-plain-medium.onnx", in: scratch)
        try FileManager.default.moveItem(at: model, to: models.appendingPathComponent(model.lastPathComponent))
        try FileManager.default.moveItem(
            at: PiperVoicePreparation.configFile(for: model),
            to: models.appendingPathComponent(model.lastPathComponent + ".json"))
        let shipped = models.appendingPathComponent(model.lastPathComponent)
        #expect(try ONNXModelFile.metadata(of: shipped)["comment"] == nil)
        let before = try Data(contentsOf: shipped)
        try Data(#"{"name":"plain","language":"en-US","engine":"piper","piper":{"model":"en_US-plain-medium"}}"#.utf8)
            .write(to: voices.appendingPathComponent("plain.json"))
        func files() -> Set<String> {
            Set(FileManager.default.enumerator(atPath: scratch.path)?.compactMap { $0 as? String } ?? [])
        }
        let existing = files()

        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for variable in ["XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"] {
            environment[variable] = nil
        }
        environment["SPEAK_MODELS"] = models.path
        // Nor ONNX Runtime's usage database (~/.cache/Microsoft/DeveloperTools/.onnxruntime).
        environment["ORT_DISABLE_TELEMETRY"] = nil
        let output = scratch.appendingPathComponent("plain.wav")
        let result = try Command.run(
            [full, "--voices-dir", voices.path, "-v", "plain", "-o", output.path, "Hello there."],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.5)
        #expect(files().subtracting(existing) == ["plain.wav"])
        #expect(try Data(contentsOf: shipped) == before)
    }

    @Test("speak -v joe writes WAV and MP3 at the model's rate; light speak hands joe to speak-full")
    func writesFiles() throws {
        for (executable, name) in [(light, "joe.wav"), (full, "joe.mp3")] {
            let output = scratch.appendingPathComponent(name)
            let result = try Command.run([executable, "-v", "joe", "-o", output.path, SynthesisTests.sentence])
            #expect(result.status == 0, "\(result.stderr)")
            let pcm = try PCMBuffer(audio: Data(contentsOf: output))
            #expect(pcm.sampleRate == 22050)
            #expect(pcm.duration > 1.5 && pcm.duration < 4.5, "\(pcm.duration) s")
        }
    }

    @Test("a text with nothing to say writes a valid file of no samples, not an empty one")
    func nothingToSay() throws {
        for text in ["()", "\u{200B}"] {
            let output = scratch.appendingPathComponent("nothing.wav")
            let result = try Command.run([full, "-v", "joe", "-o", output.path, text])
            #expect(result.status == 0, "\(result.stderr)")
            let pcm = try PCMBuffer(audio: Data(contentsOf: output))
            #expect(pcm.sampleRate == 22050 && pcm.samples.isEmpty)
        }
    }

    @Test("a voice whose model is not installed fails in one line naming the install command")
    func notInstalled() throws {
        try Data(#"{"name":"ghost","language":"en-US","engine":"piper","piper":{"model":"en_US-ghost.onnx"}}"#.utf8)
            .write(to: scratch.appendingPathComponent("ghost.json"))
        let output = scratch.appendingPathComponent("ghost.wav").path
        let result = try Command.run([full, "--voices-dir", scratch.path, "-v", "ghost", "-o", output, "Boo"])
        #expect(result.status == 66, "a model that cannot be read is exit 66 (EX_NOINPUT)")
        #expect(
            result.stderr.hasPrefix("speak: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("not installed") && result.stderr.contains("Scripts/install-piper"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("a damaged model is exit 65 in one line, never a crash")
    func damagedModel() throws {
        let models = scratch.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let installed = URL(fileURLWithPath: "/usr/local/share/speak/models")
        try Data(repeating: 0x5A, count: 4096).write(to: models.appendingPathComponent("en_US-joe-medium.onnx"))
        for suffix in [".onnx.json"] {
            try FileManager.default.copyItem(
                at: installed.appendingPathComponent("en_US-joe-medium" + suffix),
                to: models.appendingPathComponent("en_US-joe-medium" + suffix))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SPEAK_MODELS"] = models.path
        let output = scratch.appendingPathComponent("damaged.wav").path
        let result = try Command.run([full, "-v", "joe", "-o", output, "Hello."], environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("speak: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
    }

    /// joe as it is installed, with 4 KiB of its weights overwritten: whole as an ONNX file, it
    /// fails a node (a Reshape) when it runs.
    static func damagedInside(named name: String, in directory: URL) throws -> URL {
        let model = try Joe.original(named: name, in: directory)
        let file = try FileHandle(forWritingTo: model)
        try file.seek(toOffset: 20_000_000)
        try file.write(contentsOf: Data(repeating: 0xFF, count: 4096))
        try file.close()
        return model
    }

    @Test("a model damaged inside: voices install refuses it (65) and takes its copy out; speaking with it is 65")
    func damagedInside() throws {
        let incoming = scratch.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let model = try Self.damagedInside(named: "en_US-bad-medium.onnx", in: incoming)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        let installed = try Command.run([full, "voices", "install", model.path], environment: environment)
        // Uncaught, ONNX Runtime's exception ended the process (134) after a 0 for the install.
        #expect(installed.status == 65, "\(installed.stderr)")
        // speak's own error is one line (ONNX Runtime logs its own before it).
        let lines = installed.stderr.split(separator: "\n").filter { $0.hasPrefix("speak: ") }
        #expect(lines.count == 1 && lines[0].contains("does not run"), "\(installed.stderr)")
        let models = scratch.appendingPathComponent("data/speak/models")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: models.path))?.isEmpty ?? true)
        #expect(
            !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("data/speak/voices/bad.json").path))

        // Prepared in place and named by a voice: speaking with it is 65 too, never an abort.
        let prepared = scratch.appendingPathComponent("prepared")
        try PiperVoicePreparation.prepare(model: model, into: prepared, split: false)
        let voices = scratch.appendingPathComponent("voices")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        try Data(#"{"name":"bad","language":"en-US","engine":"piper","piper":{"model":"en_US-bad-medium.onnx"}}"#.utf8)
            .write(to: voices.appendingPathComponent("bad.json"))
        environment["SPEAK_MODELS"] = prepared.path
        let output = scratch.appendingPathComponent("bad.wav").path
        let spoken = try Command.run(
            [full, "--voices-dir", voices.path, "-v", "bad", "-o", output, "Hello."], environment: environment)
        #expect(spoken.status == 65, "\(spoken.stderr)")
        #expect(spoken.stderr.split(separator: "\n").last?.hasPrefix("speak: ") == true, "\(spoken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("speak voices install prepares a user's Piper voice; it then speaks by its name")
    func installsVoice() throws {
        let incoming = scratch.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let model = try Joe.original(named: "en_US-sam-medium.onnx", in: incoming)
        let before = try Data(contentsOf: model)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        let installed = try Command.run([full, "voices", "install", incoming.path], environment: environment)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(String(decoding: installed.stdout, as: UTF8.self).contains("installed voice 'sam' (en-US)"))
        #expect(try Data(contentsOf: model) == before)
        let voices = scratch.appendingPathComponent("data/speak/voices")
        let voice = try JSONDecoder().decode(
            Voice.self, from: Data(contentsOf: voices.appendingPathComponent("sam.json")))
        #expect(voice.engine == "piper" && voice.language == "en-US")
        #expect(
            try voice.settings(as: PiperVoiceSettings.self)
                == PiperVoiceSettings(model: "en_US-sam-medium.onnx", speaker: 0))
        let prepared = scratch.appendingPathComponent("data/speak/models/en_US-sam-medium.onnx")
        #expect(try Data(contentsOf: prepared) == before)

        // Found where `voices install` put it, with no --voices-dir.
        let output = scratch.appendingPathComponent("sam.wav")
        let spoken = try Command.run([light, "-v", "sam", "-o", output.path, "Hello there."], environment: environment)
        #expect(spoken.status == 0, "\(spoken.stderr)")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.5)

        let missing = try Command.run([full, "voices", "install", scratch.appendingPathComponent("none").path])
        #expect(missing.status == 66 && missing.stderr.contains("no Piper voice"))
    }
    @Test("voices install refuses a model clash, a missing speaker and unmakeable directories, touching nothing")
    func installClash() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        func incoming(_ name: String, espeakVoice: String) throws -> URL {
            let directory = scratch.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let model = try Joe.original(named: "voice.onnx", in: directory)
            let configFile = PiperVoicePreparation.configFile(for: model)
            var config = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: configFile)) as? [String: Any])
            config["espeak"] = ["voice": espeakVoice]
            try JSONSerialization.data(withJSONObject: config).write(to: configFile)
            return model
        }
        let alpha = try incoming("a", espeakVoice: "en-gb")
        let beta = try incoming("b", espeakVoice: "de")
        let installedConfig = scratch.appendingPathComponent("data/speak/models/voice.onnx.json")
        let first = try Command.run(
            [full, "voices", "install", "--name", "alpha", alpha.path], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let alphaConfig = try Data(contentsOf: installedConfig)

        // A speaker the model does not have is refused before anything is copied.
        let badSpeaker = try Command.run(
            [full, "voices", "install", "--name", "beta", "--speaker", "5", beta.path], environment: environment)
        #expect(badSpeaker.status == 64, "\(badSpeaker.stderr)")
        #expect(try Data(contentsOf: installedConfig) == alphaConfig)

        let clash = try Command.run([full, "voices", "install", "--name", "beta", beta.path], environment: environment)
        #expect(clash.status == 73, "\(clash.stderr)")
        #expect(clash.stderr.contains("already holds a different voice.onnx"), "\(clash.stderr)")
        #expect(clash.stderr.filter { $0 == "\n" }.count == 1)
        #expect(try Data(contentsOf: installedConfig) == alphaConfig)
        #expect(
            !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("data/speak/voices/beta.json").path))

        // The same model again (another speaker, a new name) is no clash.
        let again = try Command.run(
            [full, "voices", "install", "--name", "alpha2", alpha.path], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")

        // Directories that cannot be made: 73, saying why in one line.
        for (flag, message) in [
            ("--models-dir", "cannot write /dev/null/dir: mkdir /dev/null/dir: Not a directory"),
            ("--voices-dir", "cannot make /dev/null/dir: mkdir /dev/null/dir: Not a directory"),
        ] {
            let refused = try Command.run(
                [full, "voices", "install", flag, "/dev/null/dir", alpha.path], environment: environment)
            #expect(refused.status == 73 && refused.stderr == "speak: \(message)\n", "\(refused.stderr)")
        }
        // The voices directory is made before the model is copied: refused, nothing is left behind.
        let models = scratch.appendingPathComponent("other-models")
        let noVoices = try Command.run(
            [full, "voices", "install", "--models-dir", models.path, "--voices-dir", "/dev/null/dir", alpha.path],
            environment: environment)
        #expect(noVoices.status == 73, "\(noVoices.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? []).isEmpty)

        // A directory with one bad config installs none of its voices, not those before it.
        let mixed = scratch.appendingPathComponent("mixed")
        try FileManager.default.createDirectory(at: mixed, withIntermediateDirectories: true)
        _ = try Joe.original(named: "aaa.onnx", in: mixed)
        try Data(repeating: 0, count: 4096).write(to: mixed.appendingPathComponent("bbb.onnx"))
        try Data("not JSON".utf8).write(to: mixed.appendingPathComponent("bbb.onnx.json"))
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data-mixed").path
        let partly = try Command.run([full, "voices", "install", mixed.path], environment: environment)
        #expect(partly.status == 65, "\(partly.stderr)")
        let voices = scratch.appendingPathComponent("data-mixed/speak/voices")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: voices.path)) ?? []).isEmpty)
    }
}
