// swift-tools-version: 6.0
import PackageDescription

// Swift's runtime and Foundation linked statically: `speak "Build passed"` then maps a handful of
// shared libraries instead of twenty, and starts about as fast as `espeak-ng` does.
let foundationStatic = [
    "Foundation", "CoreFoundation", "FoundationEssentials", "FoundationInternationalization", "_FoundationICU",
    "_FoundationCShims", "_FoundationCollections",
]
// SwiftPM lists Foundation's static archives in an order a single-pass linker cannot resolve: group them.
let staticRuntime: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-Xlinker", "--start-group"] + foundationStatic.flatMap { ["-Xlinker", "-l\($0)"] }
            + ["-Xlinker", "--end-group"])
]

let package = Package(
    name: "speak",
    products: [
        .executable(name: "speak", targets: ["speak"]),
        .executable(name: "speak-full", targets: ["speak-full"]),
        .library(name: "SpeakKit", targets: ["SpeakKit"]),
    ],
    targets: [
        // One system-library target per C library, found through pkg-config, installed with apt.
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
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
        // sherpa-onnx's C API, vendored header, opened with dlopen on first use (Scripts/install-piper).
        .target(name: "CSherpaOnnx", linkerSettings: [.linkedLibrary("dl")]),

        // The engine: espeak-ng, LAME, mpg123, ALSA, and the seams every other engine plugs into.
        .target(name: "SpeakKit", dependencies: ["CEspeakNG", "CLame", "CMpg123", "CALSA"]),
        // Engines and codecs with heavy libraries, each its own module so a command links only
        // what it uses.
        .target(name: "SpeakMedia", dependencies: ["SpeakKit", "CFFmpeg"]),
        .target(name: "SpeakPocketSphinx", dependencies: ["SpeakKit", "CPocketSphinx"]),
        .target(name: "SpeakUpstream", dependencies: ["SpeakKit"]),
        .target(name: "SpeakPiper", dependencies: ["SpeakKit", "CSherpaOnnx"]),
        .target(name: "SpeakServer", dependencies: ["SpeakKit", "SpeakMedia", "SpeakUpstream", "CMicroHTTPD"]),

        // The command line: `speak` is small and fast; it hands what it does not carry over to
        // `speak-full` (as git hands `git foo` to `git-foo`).
        .target(name: "SpeakCLI", dependencies: ["SpeakKit"]),
        .executableTarget(name: "speak", dependencies: ["SpeakCLI"], linkerSettings: staticRuntime),
        .executableTarget(
            name: "speak-full",
            dependencies: [
                "SpeakCLI", "SpeakKit", "SpeakMedia", "SpeakPocketSphinx", "SpeakUpstream", "SpeakServer", "SpeakPiper",
            ],
            linkerSettings: []),

        .testTarget(
            name: "SpeakKitTests", dependencies: ["SpeakKit", "SpeakMedia", "SpeakPocketSphinx", "SpeakUpstream"]),
        .testTarget(name: "SpeakPiperTests", dependencies: ["SpeakPiper", "SpeakKit", "SpeakPocketSphinx"]),
        .testTarget(name: "SpeakServerTests", dependencies: ["SpeakServer", "SpeakKit"]),
        // These run the built `speak` and `speak-full`, which `swift build --build-tests` builds with them.
        .testTarget(name: "SpeakCLITests", dependencies: ["SpeakKit"]),
    ],
    swiftLanguageModes: [.v6]
)
