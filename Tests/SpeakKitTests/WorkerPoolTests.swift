import Foundation
import Testing

@testable import SpeakKit

/// The pool runs the built `speak` executable, the test bundle's sibling: `swift build --build-tests`
/// builds it (this test target cannot depend on an executable target).
@Suite("synthesis in worker processes")
struct WorkerPoolTests {
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("speak")
    static let voice = VoiceCatalog.builtInDefault
    static let sentences = [
        "The first sentence is short.", "The second one takes a little longer to say out loud.",
        "Here is a third.", "And a fourth, which ends the paragraph.",
    ]
    static let longText = Array(repeating: sentences.joined(separator: " "), count: 4).joined(separator: " ")

    struct ConsumerGaveUp: Error {}

    static func request(_ text: String, format: ReplyFormat = .mp3, voice: Voice = voice) -> SynthesisRequest {
        SynthesisRequest(text: text, options: SpeechOptions(voice: voice), format: format)
    }

    /// What espeak-ng says for `text` in this process.
    static func speech(_ text: String) throws -> PCMBuffer {
        let synthesizer = try EspeakSynthesizer.shared()
        var pcm = PCMBuffer(sampleRate: synthesizer.sampleRate)
        try synthesizer.synthesize(text, options: SpeechOptions(voice: voice)) { pcm.samples += $0.samples }
        return pcm
    }

    /// Whether an MP3 reply lasts as long as `text` encoded in this process. Not sample by sample:
    /// espeak-ng's output varies a little with the state earlier utterances left behind (by up to
    /// about 20 ms here), and MP3 rounds to frames of 52 ms.
    static func matches(_ reply: Data, _ text: String) throws -> Bool {
        let expected = try MP3Decoder.decode(MP3Encoder.encodeFile(speech(text))).duration
        return abs(try MP3Decoder.decode(reply).duration - expected) < 0.08
    }

    /// The encoded reply, as the server makes it: the pool's PCM through the engine's encoder.
    static func reply(_ pool: WorkerPool, _ request: SynthesisRequest) throws -> Data {
        let engine = SpeechEngine(
            catalog: VoiceCatalog(voices: []),
            synthesizers: SynthesizerRegistry([EspeakSynthesizer.engineName: { pool }]))
        return try engine.reply(ReplyRequest(request)).collected().0
    }

    @Test("an MP3 reply through a worker decodes to what synthesis in process gives")
    func mp3MatchesInProcess() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        let text = Self.sentences.joined(separator: " ")
        #expect(try Self.matches(Self.reply(pool, Self.request(text)), text))
    }

    @Test("a reply streams: several chunks, the first long before the last")
    func streams() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        _ = try Self.reply(pool, Self.request("Warm up."))
        let start = Date()
        var arrivals: [TimeInterval] = []
        try pool.synthesize(Self.request(Self.longText)) { _ in arrivals.append(Date().timeIntervalSince(start)) }
        let total = Date().timeIntervalSince(start)
        #expect(arrivals.count > 5)
        #expect(try #require(arrivals.first) < total / 4, "first chunk at \(arrivals.first!) s of \(total) s")
    }

    @Test("two workers serve eight concurrent requests, each its own reply")
    func concurrentRequests() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 2)
        // Each text one sentence (a second or more) longer than the one before.
        let texts = (0..<8).map { count in (0...count).map { Self.sentences[$0 % 4] }.joined(separator: " ") }
        let replies = Locked<[Int: Result<Data, any Error>]>([:])
        let done = DispatchGroup()
        for (index, text) in texts.enumerated() {
            done.enter()
            Thread {
                let reply = Result { try Self.reply(pool, Self.request(text)) }
                replies.withLock { $0[index] = reply }
                done.leave()
            }.start()
        }
        done.wait()
        let byIndex = replies.withLock { $0 }
        for (index, text) in texts.enumerated() {
            #expect(try Self.matches(#require(byIndex[index]).get(), text), "request \(index)")
        }
    }

    @Test("an unknown espeak-ng voice is a WorkerError, and the worker serves the next request")
    func badVoice() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        let pid = pool.idleProcessIDs
        let bad = Voice.espeak(name: "bad", language: "xx", EspeakVoiceSettings(voice: "no-such-voice"))
        let error = try #require(throws: WorkerError.self) { try Self.reply(pool, Self.request("Hello.", voice: bad)) }
        #expect(error.message.contains("no-such-voice"), "\(error)")
        #expect(!error.workerDied, "a refusal, which another worker would repeat")
        #expect(pool.idleProcessIDs == pid, "the same worker, not a replacement")
        #expect(try Self.matches(Self.reply(pool, Self.request("Hello.")), "Hello."))
    }

    @Test("a consumer that gives up mid-reply does not corrupt the next reply")
    func consumerGivesUp() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        var chunks = 0
        #expect(throws: ConsumerGaveUp.self) {
            try pool.synthesize(Self.request(Self.longText)) { _ in
                chunks += 1
                throw ConsumerGaveUp()
            }
        }
        #expect(chunks == 1)
        let text = "After the interruption."
        #expect(try Self.matches(Self.reply(pool, Self.request(text)), text))
    }

    @Test("a worker that dies before a reply starts is replaced, and the reply comes from the fresh one")
    func workerDies() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 1)
        let pid = try #require(pool.idleProcessIDs.first)
        kill(pid, SIGKILL)
        #expect(try Self.matches(Self.reply(pool, Self.request("Anyone there?")), "Anyone there?"))
        #expect(pool.idleProcessIDs.first != pid)
        #expect(try Self.matches(Self.reply(pool, Self.request("Yes.")), "Yes."))
    }

    @Test("WAV and 24 kHz PCM replies")
    func wavAndPCM() throws {
        let text = Self.sentences.joined(separator: " ")
        // Each the first utterance of a fresh worker, so espeak-ng says exactly the same in both.
        let wav = try WAV.decode(
            Self.reply(WorkerPool(executable: Self.executable, size: 1), Self.request(text, format: .wav)))
        let pcm = try Self.reply(WorkerPool(executable: Self.executable, size: 1), Self.request(text, format: .pcm))
        #expect(abs(wav.duration - (try Self.speech(text)).duration) < 0.03)
        #expect(
            pcm.count == 2 * ((wav.samples.count * 24000 + 22049) / 22050), "\(pcm.count) bytes for \(wav.duration) s")
    }

    @Test("after shutdown, requests fail with a WorkerError")
    func shutdown() throws {
        let pool = try WorkerPool(executable: Self.executable, size: 2)
        pool.shutdown()
        #expect(pool.idleProcessIDs.isEmpty)
        #expect(throws: WorkerError.self) { try Self.reply(pool, Self.request("Too late.")) }
    }
}
