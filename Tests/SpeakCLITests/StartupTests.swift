import Foundation
import SpeakKit
import Testing

/// `speak "Build passed"` must start as fast as `espeak-ng`: the light binary maps only the
/// libraries synthesis and playback need, never FFmpeg's codec chain, pocketsphinx's BLAS/LAPACK,
/// libmicrohttpd or a neural runtime. The dynamic linker's own trace says what was loaded.
@Suite("start-up: what the light speak loads")
final class StartupTests {
    /// The test's trace and files, removed after it (Swift Testing runs deinit then).
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-ld-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Libraries only speak-full may load, by the start of their file names.
    static let heavy = [
        "libavformat", "libavcodec", "libswresample", "libavutil", "libpocketsphinx", "libsphinxbase", "libblas",
        "liblapack", "libgfortran", "libmicrohttpd", "libonnxruntime", "libwhisper", "libggml",
        "libcurl", "libFoundationNetworking",
    ]

    /// The shared libraries `speak arguments…` initialised, by file name.
    static func librariesLoaded(_ arguments: [String], in directory: URL) throws -> (Subprocess.Result, [String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        environment["LD_DEBUG_OUTPUT"] = directory.appendingPathComponent("ld").path
        let result = try Speak.run(arguments, environment: environment)
        var names: [String] = []
        for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        where file.lastPathComponent.hasPrefix("ld.") {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            where line.contains("calling init:") {
                names.append(String(line.split(separator: "/").last ?? ""))
            }
            try FileManager.default.removeItem(at: file)
        }
        return (result, names)
    }

    @Test(
        "speak TEXT, -o FILE, FILE.mp3, -v '?' and --version load none of the heavy libraries",
        arguments: [
            ["--version"], ["-v", "?"], ["-a", "null", "Build passed."], ["-o", "{dir}/reply.mp3", "Build passed."],
            ["-a", "null", "{dir}/reply.mp3"],
        ])
    func lightCommands(arguments: [String]) throws {
        // The file the -o run writes is the one the play run plays.
        if arguments.last?.hasSuffix(".mp3") == true, arguments.first == "-a" {
            #expect(
                try Speak.run(["-o", directory.appendingPathComponent("reply.mp3").path, "Build passed."]).status == 0)
        }
        let (result, libraries) = try Self.librariesLoaded(
            arguments.map { $0.replacingOccurrences(of: "{dir}", with: directory.path) }, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(libraries.contains { $0.hasPrefix("libc.so") }, "the trace was read: \(libraries)")
        let loaded = libraries.filter { library in Self.heavy.contains { library.hasPrefix($0) } }
        #expect(loaded.isEmpty, "speak \(arguments.joined(separator: " ")) loaded \(loaded)")
    }

    @Test(
        "speak TEXT and -o open espeak-ng without pcaudio: the stand-in answers for it",
        arguments: [["-a", "null", "Build passed."], ["-o", "{dir}/reply.wav", "Build passed."]])
    func espeakWithoutItsAudio(arguments: [String]) throws {
        let (result, libraries) = try Self.librariesLoaded(
            arguments.map { $0.replacingOccurrences(of: "{dir}", with: directory.path) }, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(libraries.contains("libespeak-ng.so.1") && libraries.contains("libspeak-silent-pcaudio.so"))
        #expect(!libraries.contains { $0.hasPrefix("libpcaudio") }, "\(libraries)")
        // Without a device nothing loads PulseAudio's client (playing, ALSA's pulse hook may).
        if arguments[0] == "-o" {
            let audio = libraries.filter {
                ["libpulse", "libX11", "libsndfile", "libFLAC"].contains(where: $0.hasPrefix)
            }
            #expect(audio.isEmpty, "\(audio)")
        }
    }

    @Test("speak TEXT opens libespeak-ng before ALSA's PulseAudio hook loads its libraries")
    func espeakBeforeTheHook() throws {
        // The two load on different threads, and the dynamic loader serves one at a time:
        // libespeak-ng (0.3 ms) waited ~3 ms behind the hook's ~30 libraries when it came second.
        // Left to the threads, the order is a race (second in about one run of three): five runs.
        for _ in 0..<5 {
            let (result, libraries) = try Self.librariesLoaded(["-a", "null", "Build passed."], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            let espeak = try #require(libraries.firstIndex(of: "libespeak-ng.so.1"), "\(libraries)")
            guard let pulse = libraries.firstIndex(where: { $0.hasPrefix("libpulse.so") }) else {
                return  // no PulseAudio hook in this ALSA configuration: nothing to wait behind
            }
            #expect(espeak < pulse, "\(libraries)")
        }
    }

    /// Whether the executable at `path` carries CoreFoundation (Foundation's C core, statically
    /// linked): its initialiser's name is in the symbol table.
    static func carriesCoreFoundation(_ path: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: path)).firstRange(of: Data("__CFInitialize".utf8)) != nil
    }

    @Test("the light speak links FoundationEssentials, not Foundation (speak-full carries it, so the check can fail)")
    func lightWithoutFoundation() throws {
        let full = URL(fileURLWithPath: Speak.executable).deletingLastPathComponent().appendingPathComponent(
            "speak-full")
        #expect(try Self.carriesCoreFoundation(full.path))
        #expect(
            try !Self.carriesCoreFoundation(Speak.executable),
            "an `import Foundation` in SpeakKit, SpeakCLI or SpeakPiper?")
    }

    @Test("the same trace sees the heavy libraries in speak serve's binary, so the check can fail")
    func traceSeesHeavyLibraries() throws {
        let (result, libraries) = try Self.librariesLoaded(["serve", "--help"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            libraries.contains { $0.hasPrefix("libmicrohttpd") } && libraries.contains { $0.hasPrefix("libavcodec") })
    }
}
