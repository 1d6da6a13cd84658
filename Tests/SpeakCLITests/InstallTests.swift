import Foundation
import SpeakKit
import Testing

/// `Scripts/install` lays speak out under a prefix as a Unix tool is, and what it installs works on
/// its own: run from elsewhere with the source tree, the build and the toolchain's Swift runtime
/// covered by empty directories (a private mount namespace), the installed `speak` still finds its
/// voices, writes a file, and hands `serve` over to `libexec/speak/speak-full`.
@Suite("Scripts/install: an installed prefix works without the source tree")
struct InstallTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL
    /// The build these tests run in: the directory of the built `speak` and `speak-full`.
    static let buildDirectory = URL(fileURLWithPath: Speak.executable).deletingLastPathComponent()
    static let unshare = "/usr/bin/unshare"
    static let man = "/usr/bin/man"

    /// `unshare -m` needs root (CAP_SYS_ADMIN); without it nothing can be hidden, and a check that
    /// could resolve into the source tree unseen would prove nothing.
    static let canHide =
        FileManager.default.isExecutableFile(atPath: unshare)
        && (try? Subprocess.run(unshare, ["-m", "/bin/true"]).status) == 0

    /// The directory this test process loads Swift's runtime from (the toolchain's `lib/swift/linux`).
    static var swiftRuntimeDirectory: URL? {
        // procfs files report size 0, so they are read to their end rather than by their size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
            let path = line.split(separator: " ").last
        else { return nil }
        return URL(fileURLWithPath: String(path)).deletingLastPathComponent()
    }

    /// A scratch directory outside the package, removed by `cleanUp`.
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("speak-install-\(UUID().uuidString.prefix(8))").standardizedFileURL
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(!directory.path.hasPrefix(packageRoot.path + "/"), "the scratch directory is outside the package")
        return directory
    }

    static func install(into prefix: URL) throws -> Subprocess.Result {
        try Subprocess.run(
            "/bin/bash",
            [packageRoot.appendingPathComponent("Scripts/install").path, "--from", buildDirectory.path, prefix.path])
    }

    static let userDirectories = ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"]

    /// The environment of a user with nothing of speak's set up: no `SPEAK_VOICES` or `SPEAK_VOICE`,
    /// and home, config, cache, data and runtime directories of its own.
    static func userEnvironment(home: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SPEAK_VOICES"] = nil
        environment["SPEAK_VOICE"] = nil
        environment["HOME"] = home.path
        for variable in Self.userDirectories {
            environment[variable] = home.appendingPathComponent(variable).path
        }
        return environment
    }

    /// Runs `command` in `directory` in a private mount namespace where an empty directory covers
    /// each of `hidden`; fails (exit 99) if one still shows a file.
    static func runHidden(
        _ command: [String], in directory: URL, hiding hidden: [URL], empty: URL, environment: [String: String]
    ) throws -> Subprocess.Result {
        let script = """
            empty=$1 directory=$2; shift 2
            while [ "$1" != -- ]; do
                mount --bind "$empty" "$1" || exit 98
                [ -z "$(ls -A "$1")" ] || { echo "$1 is still visible" >&2; exit 99; }
                shift
            done
            shift
            cd "$directory" && exec "$@"
            """
        let arguments =
            ["-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", empty.path, directory.path]
            + hidden.map(\.path) + ["--"] + command
        return try Subprocess.run(unshare, arguments, environment: environment)
    }

    @Test("installs bin, libexec, voices, the man page and the unit; a second run changes nothing")
    func layout() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let prefix = scratch.appendingPathComponent("prefix")

        let first = try Self.install(into: prefix)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("installed  \(prefix.path)/bin/speak\n"), "\(first.stdout)")
        let files = FileManager.default
        for executable in ["bin/speak", "libexec/speak/speak-full"] {
            #expect(files.isExecutableFile(atPath: prefix.appendingPathComponent(executable).path), "\(executable)")
        }
        let shipped = try files.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent("Voices").path)
            .filter { $0.hasSuffix(".json") }
        #expect(!shipped.isEmpty)
        for voice in shipped {
            #expect(
                files.fileExists(atPath: prefix.appendingPathComponent("share/speak/Voices/\(voice)").path), "\(voice)")
        }
        #expect(files.fileExists(atPath: prefix.appendingPathComponent("share/man/man1/speak.1").path))
        #expect(files.fileExists(atPath: prefix.appendingPathComponent("lib/speak/libspeak-silent-pcaudio.so").path))
        let unit = try String(
            contentsOf: prefix.appendingPathComponent("lib/systemd/system/speak.service"), encoding: .utf8)
        #expect(unit.contains("\nExecStart=\(prefix.path)/bin/speak serve "), "\(unit)")
        #expect(unit.contains("\n[Install]\n"))

        let second = try Self.install(into: prefix)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("done: 0 installed, "), "\(second.stdout)")
        #expect(!second.stdout.contains("  installed  "), "\(second.stdout)")
    }

    @Test(
        "the installed speak runs from elsewhere with the source tree, the build and the toolchain out of reach",
        .enabled(if: canHide, "needs unshare -m (root) to hide the source tree"))
    func runsWithoutTheSourceTree() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let prefix = scratch.appendingPathComponent("prefix")
        let workingDirectory = scratch.appendingPathComponent("work")
        let empty = scratch.appendingPathComponent("empty")
        for directory in [workingDirectory, empty] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let installed = try Self.install(into: prefix)
        try #require(installed.status == 0, "\(installed.stdout)\(installed.stderr)")

        // The build first: it may lie inside the package root, which would then cover it.
        let runtime = try #require(Self.swiftRuntimeDirectory, "the test process's Swift runtime is found")
        let hidden = [Self.buildDirectory, Self.packageRoot, runtime]
        let environment = Self.userEnvironment(home: scratch)
        for variable in Self.userDirectories {
            try FileManager.default.createDirectory(atPath: environment[variable]!, withIntermediateDirectories: true)
        }
        func run(_ executable: String, _ arguments: [String]) throws -> Subprocess.Result {
            try Self.runHidden(
                [prefix.appendingPathComponent(executable).path] + arguments, in: workingDirectory,
                hiding: hidden, empty: empty, environment: environment)
        }
        let shippedVoices = Self.packageRoot.appendingPathComponent("Voices")
        let names = try VoiceCatalog(directories: [shippedVoices]).voices.map(\.name)

        // Both executables find the shipped voices from where they are installed, not from the build.
        for executable in ["bin/speak", "libexec/speak/speak-full"] {
            let listing = try run(executable, ["-v", "?"])
            #expect(listing.status == 0, "\(executable): \(listing.stderr)")
            let listed = listing.stdout.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
            #expect(listed == names, "\(executable) -v '?' lists the shipped voices: \(listing.stdout)")
        }

        let written = try run("bin/speak", ["-o", "x.wav", "Hello"])
        #expect(written.status == 0, "\(written.stderr)")
        let wav = try Data(contentsOf: workingDirectory.appendingPathComponent("x.wav"))
        #expect(wav.count > 44 + 4_000, "a WAV with \"Hello\" in it: \(wav.count) bytes")
        #expect(wav.prefix(4) == Data("RIFF".utf8))

        // speak hands serve over to ../libexec/speak/speak-full, which needs no Swift toolchain either.
        let serve = try run("bin/speak", ["serve", "--help"])
        #expect(serve.status == 0, "\(serve.stderr)")
        #expect(serve.stdout.contains("usage: speak serve"), "\(serve.stdout)")
    }

    @Test(
        "the installed man page renders without warnings, and man finds it under the prefix",
        .enabled(if: FileManager.default.isExecutableFile(atPath: man), "needs man-db"))
    func manPage() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let prefix = scratch.appendingPathComponent("prefix")
        let installed = try Self.install(into: prefix)
        try #require(installed.status == 0, "\(installed.stdout)\(installed.stderr)")

        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["MANPAGER"] = "cat"
        let page = prefix.appendingPathComponent("share/man/man1/speak.1").path
        let rendered = try Subprocess.run(
            Self.man, ["--warnings", "-E", "UTF-8", "-l", page], environment: environment)
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "man's warnings: \(rendered.stderr)")
        for section in [
            "SYNOPSIS", "OPTIONS", "SPEAK SERVE", "SPEAK TRANSCRIBE", "SPEAK RECORD", "SPEAK ASK",
            "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO",
        ] {
            #expect(rendered.stdout.contains("\n\(section)\n"), "section \(section)")
        }
        let found = try Subprocess.run(
            Self.man, ["-M", prefix.appendingPathComponent("share/man").path, "speak"], environment: environment)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("SPEAK SERVE"))
    }
}
