import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// The engine's answer to "held, stored or make it" and how a new reply is made, which every HTTP
/// speech route and the SSE stream map to responses. Test-only engines plugged in as real ones are.
@Suite("PluggedEngineReplies")
struct PluggedEngineReplyTests {
    static let voice = Voice(name: "scripted", language: "en-US", engine: "scripted")

    static func engine(_ script: ScriptedSynthesizer.Script = .init(), cache: URL? = nil) throws -> SpeechEngine {
        let synthesizer = ScriptedSynthesizer(script)
        return SpeechEngine(
            catalog: VoiceCatalog(voices: [voice]),
            synthesizers: SynthesizerRegistry(["scripted": { synthesizer }]),
            cache: try cache.map { try ReplyCache(directory: $0, maximumBytes: 1 << 20) })
    }

    static let request = SynthesisRequest(text: "hello", options: SpeechOptions(voice: voice), format: .wav)

    /// A fresh directory per test, removed when the test ends.
    private func withDirectory(_ body: (URL) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "PluggedEngineReplyTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    @Test("without a cache every reply is made")
    func noCache() throws {
        let engine = try Self.engine()
        _ = try engine.reply(Self.request)
        guard case .make = engine.decision(for: Self.request) else {
            Issue.record("expected make")
            return
        }
    }

    @Test("a reply is made, then stored; once read it is held in memory")
    func madeStoredHeld() throws {
        try withDirectory { directory in
            let engine = try Self.engine(cache: directory)
            guard case .make = engine.decision(for: Self.request) else {
                Issue.record("expected make before the reply exists")
                return
            }
            let (made, _) = try engine.reply(Self.request)
            guard case .stored(let key) = engine.decision(for: Self.request) else {
                Issue.record("expected the new reply stored on disk")
                return
            }
            #expect(engine.storedReply(key) == made)
            guard case .held(let held) = engine.decision(for: Self.request) else {
                Issue.record("expected the read reply held in memory")
                return
            }
            #expect(held == made)
        }
    }

    @Test("a stored reply evicted after it was seen reads as nil, so it is made again")
    func storedThenGone() throws {
        try withDirectory { directory in
            let engine = try Self.engine(cache: directory)
            _ = try engine.reply(Self.request)
            guard case .stored(let key) = engine.decision(for: Self.request) else {
                Issue.record("expected the reply stored on disk")
                return
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            #expect(engine.storedReply(key) == nil)
        }
    }

    @Test("a streaming engine's reply streams unless asked whole; one that answers whole never streams")
    func streamsOrWhole() throws {
        #expect(try Self.engine().plan(Self.request).streams)
        #expect(try !Self.engine().plan(Self.request, whole: true).streams)
        var whole = ScriptedSynthesizer.Script()
        whole.features = [.rate]
        #expect(try !Self.engine(whole).plan(Self.request).streams)
    }

    @Test("a voice that cannot speak here is refused before a streamed reply starts, not before a whole one")
    func unavailableRefused() throws {
        var script = ScriptedSynthesizer.Script()
        script.problems = ["voice:scripted": "its model is missing"]
        let engine = try Self.engine(script)
        #expect(throws: SynthesisError.self) { try engine.plan(Self.request) }
        #expect(throws: SynthesisError.self) { try engine.refuseIfUnavailable(Self.voice) }
        #expect(try !engine.plan(Self.request, whole: true).streams)
    }
}
