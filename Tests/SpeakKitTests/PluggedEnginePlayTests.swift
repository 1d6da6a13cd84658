import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// What `POST /play` and the command line answer after speaking: how long it lasted, whether it came
/// from the cache, and the fallback voice that spoke. ALSA's `file` plugin is the device.
@Suite("PluggedEnginePlay", .serialized)
struct PluggedEnginePlayTests {
    static let remote = Voice(
        name: "remote", language: "en-US", engine: "scripted", settings: .object(["fallback": .string("local")]))
    static let local = Voice(name: "local", language: "en-US", engine: "scripted-local")

    static func engine(_ remote: ScriptedSynthesizer.Script, cache: URL? = nil) throws -> SpeechEngine {
        let (scripted, fallback) = (ScriptedSynthesizer(remote), ScriptedSynthesizer())
        return SpeechEngine(
            catalog: VoiceCatalog(voices: [Self.remote, Self.local]),
            synthesizers: SynthesizerRegistry(["scripted": { scripted }, "scripted-local": { fallback }]),
            cache: try cache.map { try ReplyCache(directory: $0, maximumBytes: 1 << 20) })
    }

    static let request = SynthesisRequest(text: "hello", options: SpeechOptions(voice: remote))

    /// A player writing to a fresh WAV file, and the directory that holds it, removed afterwards.
    private func withPlayer(_ body: (Player, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("heard.wav")
        try body(Player(device: "file:FILE=\(file.path),FORMAT=wav"), directory)
    }

    @Test("a fallback voice that spoke is named, with the seconds it lasted")
    func fallbackNamed() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 0
        try withPlayer { player, _ in
            let outcome = try Self.engine(script).play(Self.request, on: player)
            #expect(outcome.fallback?.voice == "local")
            // Three chunks of 160 samples at 16 kHz.
            #expect(abs(outcome.seconds - 0.03) < 1e-9)
        }
    }

    @Test("played once it is made, then from the cache, each with its length")
    func cachedSeconds() throws {
        try withPlayer { player, directory in
            let engine = try Self.engine(.init(), cache: directory.appendingPathComponent("cache"))
            let first = try engine.play(Self.request, on: player)
            #expect(!first.fromCache)
            #expect(abs(first.seconds - 0.03) < 1e-9)
            let second = try engine.play(Self.request, on: player)
            #expect(second.fromCache)
            // The stored MP3, decoded: its encoder's frames around the same 30 ms.
            #expect(second.seconds > 0.02)
        }
    }
}
