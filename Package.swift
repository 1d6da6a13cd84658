// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "speak",
    products: [
        .executable(name: "speak", targets: ["speak"]),
        .library(name: "SpeakKit", targets: ["SpeakKit"]),
        .library(name: "SpeakWhisper", targets: ["SpeakWhisper"]),
    ],
    targets: [
        // One system-library target per C library, found through pkg-config, installed with apt.
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CLame", pkgConfig: "lame", providers: [.apt(["libmp3lame-dev"])]),
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx", providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        // whisper.cpp from the pywhispercpp wheel: Scripts/install-whisper writes speak-whisper.pc.
        .systemLibrary(name: "CWhisper", pkgConfig: "speak-whisper"),
        .target(name: "SpeakKit", dependencies: ["CEspeakNG", "CLame", "CMpg123", "CALSA", "CFFmpeg", "CPocketSphinx"]),
        .target(name: "SpeakServer", dependencies: ["SpeakKit", "CMicroHTTPD"]),
        .executableTarget(name: "speak", dependencies: ["SpeakKit", "SpeakServer"]),
        .target(name: "SpeakWhisper", dependencies: ["SpeakKit", "CWhisper"]),
        .testTarget(name: "SpeakWhisperTests", dependencies: ["SpeakWhisper", "SpeakKit"]),
        .testTarget(name: "SpeakKitTests", dependencies: ["SpeakKit"]),
        .testTarget(name: "SpeakServerTests", dependencies: ["SpeakServer", "SpeakKit"]),
        .testTarget(name: "SpeakCLITests", dependencies: ["speak", "SpeakKit"]),
    ],
    swiftLanguageModes: [.v6]
)
