// swift-tools-version: 6.0
import PackageDescription

// The light `speak` links Swift's runtime and FoundationEssentials statically, so `speak "Build
// passed"` maps espeak-ng's libraries and little else, and starts about as fast as `espeak-ng` does.
// Its modules (SpeakKit, SpeakCLI, SpeakPiper, speak) import FoundationEssentials, never Foundation:
// Foundation's CoreFoundation, ICU and their constructors cost every start about half a
// millisecond and 60 % more protocol conformances for the runtime to search. lld packs the
// relative relocations (DT_RELR), which keeps the pages the loader touches few.
// SwiftPM does not name Foundation's static archives' own dependencies: they are listed here.
let essentialsStatic = ["FoundationEssentials", "_FoundationCShims", "_FoundationCollections"]
let foundationStatic = essentialsStatic + ["CoreFoundation", "FoundationInternationalization", "_FoundationICU"]
func staticRuntime(_ archives: [String]) -> [LinkerSetting] {
    [
        .unsafeFlags(
            ["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
                + archives.flatMap { ["-Xlinker", "-l\($0)"] })
    ]
}

let package = Package(
    name: "speak",
    products: [
        .executable(name: "speak", targets: ["speak"]),
        .executable(name: "speak-full", targets: ["speak-full"]),
        .library(name: "SpeakKit", targets: ["SpeakKit"]),
    ],
    targets: [
        // One system-library target per C library, found through pkg-config, installed with apt.
        .systemLibrary(name: "CLame", pkgConfig: "lame", providers: [.apt(["libmp3lame-dev"])]),
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        // whisper.cpp from the pywhispercpp wheel: Scripts/install-whisper writes speak-whisper.pc.
        .systemLibrary(name: "CWhisper", pkgConfig: "speak-whisper"),
        // espeak-ng (libespeak-ng-dev's header), opened with dlopen on first use: see CEspeakNG.h.
        .target(name: "CEspeakNG", linkerSettings: [.linkedLibrary("dl")]),
        // The few ONNX Runtime C API entries speak calls, declared in its own header; dlopened on first
        // use (Scripts/install-piper).
        .target(name: "COnnxRuntime", linkerSettings: [.linkedLibrary("dl")]),

        // The engine: espeak-ng, LAME, mpg123, ALSA, and the seams every other engine plugs into.
        // accept4 and SO_PEERCRED, which Swift's Glibc module leaves out (they need _GNU_SOURCE).
        .target(name: "CSocket"),
        .target(name: "SpeakKit", dependencies: ["CEspeakNG", "CLame", "CMpg123", "CALSA", "CSocket"]),
        // Engines and codecs with heavy libraries, each its own module so a command links only
        // what it uses.
        .target(name: "SpeakMedia", dependencies: ["SpeakKit", "CFFmpeg"]),
        .target(name: "SpeakPocketSphinx", dependencies: ["SpeakKit", "CPocketSphinx"]),
        .target(name: "SpeakUpstream", dependencies: ["SpeakKit"]),
        .target(name: "SpeakPiper", dependencies: ["SpeakKit", "COnnxRuntime"]),
        .target(name: "SpeakWhisper", dependencies: ["SpeakKit", "CWhisper"]),
        // The web page is a plain HTML file, compiled in as bytes (PackageResources.index_html): an installed
        // binary needs no data directory.
        .target(
            name: "SpeakServer", dependencies: ["SpeakKit", "SpeakUpstream", "CMicroHTTPD"],
            resources: [.embedInCode("Web/index.html")]),
        // Home Assistant's Wyoming protocol over TCP, on the same engine; plain sockets and threads.
        .target(name: "SpeakWyoming", dependencies: ["SpeakKit"]),

        // The command line: `speak` is small and fast; it hands what it does not carry over to
        // `speak-full` (as git hands `git foo` to `git-foo`).
        .target(name: "SpeakCLI", dependencies: ["SpeakKit"]),
        // The synthesizers both binaries' commands speak with. Piper voices are in the light speak
        // too: ONNX Runtime is dlopened only when one speaks.
        .target(name: "SpeakEngines", dependencies: ["SpeakCLI", "SpeakPiper"]),
        .executableTarget(
            name: "speak", dependencies: ["SpeakCLI", "SpeakEngines"], linkerSettings: staticRuntime(essentialsStatic)),
        .executableTarget(
            name: "speak-full",
            dependencies: [
                "SpeakCLI", "SpeakEngines", "SpeakKit", "SpeakMedia", "SpeakPocketSphinx", "SpeakUpstream",
                "SpeakServer", "SpeakPiper", "SpeakWhisper", "SpeakWyoming",
            ],
            // Static too, so an installed speak-full needs no Swift toolchain; URLSession's own
            // archives are listed as Foundation's are.
            linkerSettings: staticRuntime(foundationStatic) + [
                .unsafeFlags([
                    "-Xlinker", "-lFoundationNetworking", "-Xlinker", "-l_CFURLSessionInterface", "-Xlinker",
                    "-l:libcurl.so.4",
                ])
            ]),

        // Test-only engines (a scripted synthesizer, a fixed transcriber) that plug in as real ones do.
        .target(name: "SpeakTestSupport", dependencies: ["SpeakKit"], path: "Tests/SpeakTestSupport"),
        .testTarget(
            name: "SpeakKitTests",
            dependencies: ["SpeakKit", "SpeakMedia", "SpeakPocketSphinx", "SpeakUpstream", "SpeakTestSupport"]),
        .testTarget(name: "SpeakWhisperTests", dependencies: ["SpeakWhisper", "SpeakKit", "SpeakTestSupport"]),
        .testTarget(
            name: "SpeakPiperTests",
            dependencies: ["SpeakPiper", "SpeakKit", "SpeakPocketSphinx", "COnnxRuntime", "SpeakTestSupport"]),
        .testTarget(
            name: "SpeakServerTests",
            dependencies: ["SpeakServer", "SpeakKit", "SpeakMedia", "SpeakCLI", "SpeakTestSupport"]),
        .testTarget(name: "SpeakWyomingTests", dependencies: ["SpeakWyoming", "SpeakKit", "SpeakTestSupport"]),
        // These run the built `speak` and `speak-full`, which `swift build --build-tests` builds with them.
        .testTarget(name: "SpeakCLITests", dependencies: ["SpeakKit", "SpeakCLI", "SpeakMedia", "SpeakTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses (Tests/Fuzz/), one executable each, run by libFuzzer's driver: they link
// only with `-sanitize=fuzzer`, so Scripts/fuzz sets SPEAK_FUZZ=1 to declare them, and plain
// `swift build` / `swift test` never see them.
if Context.environment["SPEAK_FUZZ"] != nil {
    let harnesses: [(name: String, path: String, dependencies: [Target.Dependency])] = [
        ("fuzz-multipart", "Multipart", ["SpeakServer"]),
        ("fuzz-wav", "WAV", ["SpeakKit"]),
        ("fuzz-voice", "Voice", ["SpeakKit"]),
        ("fuzz-configuration", "Configuration", ["SpeakServer"]),
        ("fuzz-wyoming", "Wyoming", ["SpeakWyoming"]),
        ("fuzz-websocket", "WebSocket", ["SpeakServer"]),
    ]
    package.targets.append(.target(name: "FuzzDriver", path: "Tests/Fuzz/Driver"))
    for harness in harnesses {
        package.targets.append(
            .executableTarget(
                name: harness.name, dependencies: harness.dependencies + ["FuzzDriver"],
                path: "Tests/Fuzz/\(harness.path)"))
    }
}
