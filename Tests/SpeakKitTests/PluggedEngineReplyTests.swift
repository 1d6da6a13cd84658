import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// The one reply call: held, stored or made, streamed or whole, admitted, refused, as every
/// front end maps it onto its wire. Test-only engines plugged in as real ones are.
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

    /// An admission that counts who it was asked about, and refuses when told to.
    final class Admission: ReplyAdmission {
        struct Refused: Error {}
        let refuses: Bool
        let asked = Locked<[String?]>([])
        init(refuses: Bool = false) { self.refuses = refuses }

        func admit(_ client: String?) throws {
            asked.withLock { $0.append(client) }
            if refuses { throw Refused() }
        }
    }

    /// A fresh directory per test, removed when the test ends.
    private func withDirectory(_ body: (URL) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "PluggedEngineReplyTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    /// Which kind of reply came, and whether its info says it is from the cache.
    static func kind(_ reply: Reply) -> String {
        switch reply {
        case .unchanged: "unchanged"
        case .ready(_, let info): info.fromCache ? "held" : "ready"
        case .later(let info, _): info.fromCache ? "stored" : "whole"
        case .stream: "stream"
        case .samples: "samples"
        }
    }

    @Test("without a cache every reply is made")
    func noCache() throws {
        let engine = try Self.engine()
        _ = try engine.reply(ReplyRequest(Self.request)).collected()
        #expect(Self.kind(try engine.reply(ReplyRequest(Self.request))) == "stream")
    }

    @Test("a reply is made, then stored; once read it is held in memory")
    func madeStoredHeld() throws {
        try withDirectory { directory in
            let engine = try Self.engine(cache: directory)
            let first = try engine.reply(ReplyRequest(Self.request))
            #expect(Self.kind(first) == "stream")
            let (made, info) = try first.collected()
            #expect(!info.fromCache)
            let second = try engine.reply(ReplyRequest(Self.request))
            #expect(Self.kind(second) == "stored")
            let (stored, storedInfo) = try second.collected()
            #expect(stored == made && storedInfo.fromCache && storedInfo.tag == info.tag)
            let third = try engine.reply(ReplyRequest(Self.request))
            #expect(Self.kind(third) == "held")
            #expect(try third.collected().0 == made)
        }
    }

    @Test("a stored reply evicted after it was seen is made again, and charged")
    func storedThenGone() throws {
        try withDirectory { directory in
            let engine = try Self.engine(cache: directory)
            let (made, _) = try engine.reply(ReplyRequest(Self.request)).collected()
            let admission = Admission()
            let reply = try engine.reply(ReplyRequest(Self.request, client: "ann", admission: admission))
            #expect(Self.kind(reply) == "stored")
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
            let (again, info) = try reply.collected()
            #expect(again == made && !info.fromCache)
            #expect(admission.asked.withLock { $0 } == ["ann"])
        }
    }

    @Test("only a reply that is made is admitted; a refusal makes nothing")
    func admission() throws {
        try withDirectory { directory in
            let synthesizer = ScriptedSynthesizer()
            let engine = SpeechEngine(
                catalog: VoiceCatalog(voices: [Self.voice]),
                synthesizers: SynthesizerRegistry(["scripted": { synthesizer }]),
                cache: try ReplyCache(directory: directory, maximumBytes: 1 << 20))
            let refusing = Admission(refuses: true)
            #expect(throws: Admission.Refused.self) {
                try engine.reply(ReplyRequest(Self.request, client: "ann", admission: refusing))
            }
            #expect(synthesizer.requests.withLock { $0 }.isEmpty)
            _ = try engine.reply(ReplyRequest(Self.request)).collected()
            // Held or stored now: a refusing rate limit is not asked.
            let hit = try engine.reply(ReplyRequest(Self.request, client: "ann", admission: refusing))
            #expect(try hit.collected().1.fromCache)
            #expect(refusing.asked.withLock { $0 } == ["ann"])
            #expect(synthesizer.requests.withLock { $0 }.count == 1)
        }
    }

    @Test("a client that holds the reply's tag gets 'unchanged', made or not, and nothing is made")
    func clientHolds() throws {
        var script = ScriptedSynthesizer.Script()
        script.failsAfter = 0
        script.failure = ScriptedSynthesizer.Fault()
        let engine = try Self.engine(script)
        let tag = engine.cacheKey(for: Self.request).digest
        let reply = try engine.reply(ReplyRequest(Self.request, clientHolds: .tags(["other", tag])))
        guard case .unchanged(let info) = reply else {
            Issue.record("expected unchanged, got \(Self.kind(reply))")
            return
        }
        #expect(info.tag == tag)
        #expect(Self.kind(try engine.reply(ReplyRequest(Self.request, clientHolds: .any))) == "unchanged")
        #expect(Self.kind(try engine.reply(ReplyRequest(Self.request, clientHolds: .tags(["other"])))) == "stream")
    }

    @Test("a streaming engine's reply streams unless asked whole; one that answers whole never streams")
    func streamsOrWhole() throws {
        #expect(Self.kind(try Self.engine().reply(ReplyRequest(Self.request))) == "stream")
        #expect(Self.kind(try Self.engine().reply(ReplyRequest(Self.request, delivery: .whole))) == "whole")
        var whole = ScriptedSynthesizer.Script()
        whole.features = [.rate]
        #expect(Self.kind(try Self.engine(whole).reply(ReplyRequest(Self.request))) == "whole")
    }

    @Test("a voice that cannot speak here is refused before a streamed reply starts, not before a whole one")
    func unavailableRefused() throws {
        var script = ScriptedSynthesizer.Script()
        script.problems = ["voice:scripted": "its model is missing"]
        let engine = try Self.engine(script)
        #expect(throws: SynthesisError.self) { try engine.reply(ReplyRequest(Self.request)) }
        #expect(Self.kind(try engine.reply(ReplyRequest(Self.request, delivery: .whole))) == "whole")
        guard case .samples(let play) = try engine.reply(ReplyRequest(Self.request, delivery: .samples)) else {
            Issue.record("expected samples")
            return
        }
        var chunks = 0
        #expect(throws: SynthesisError.self) { try play(nil) { _ in chunks += 1 } }
        #expect(chunks == 0)
    }

    @Test("samples are stored in the request's format as they are made, then come from the cache")
    func samplesCached() throws {
        try withDirectory { directory in
            let engine = try Self.engine(cache: directory)
            func samples() throws -> ([Int16], ReplyInfo) {
                guard case .samples(let play) = try engine.reply(ReplyRequest(Self.request, delivery: .samples)) else {
                    Issue.record("expected samples")
                    return ([], ReplyInfo())
                }
                var heard: [Int16] = []
                let info = try play(nil) { heard += $0.samples }
                return (heard, info)
            }
            let (made, first) = try samples()
            #expect(!first.fromCache && made.count == 480 && abs(first.seconds - 0.03) < 1e-9)
            let (stored, info) = try engine.reply(ReplyRequest(Self.request)).collected()
            #expect(info.fromCache)
            // The WAV the cache keeps: the samples heard, padded to a tenth of a second.
            #expect(Array(try PCMBuffer(audio: stored).samples.prefix(480)) == made)
            let (again, second) = try samples()
            #expect(second.fromCache && again.prefix(480) == made[...])
            // Collected, samples are a WAV of what was heard.
            let (wav, collected) = try engine.reply(ReplyRequest(Self.request, delivery: .samples)).collected()
            let collectedSamples = Array(try PCMBuffer(audio: wav).samples.prefix(480))
            #expect(collected.fromCache && collectedSamples == made)
        }
    }
}
