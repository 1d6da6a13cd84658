import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

/// A reply's first sentence decoded in windows from the model split at install (Scripts/split-piper.py).
@Suite("Piper decoder streaming", .serialized)
struct StreamingTests {
    static let sentence = "The build finished a few minutes ago, and every one of the tests passed on the first try."

    /// A synthesizer of its own, so the model is idle unless a test here keeps it busy (other suites
    /// run at the same time on the shared one).
    static let synthesizer = PiperSynthesizer(settings: .init(streamsFirstSentence: true))

    static func split() throws -> (PiperModel, PiperSplitModel) {
        let model = try synthesizer.model(for: Joe.voice)
        return (model, try #require(model.split, "no split parts beside \(model.files.model.path)"))
    }

    /// Piper's ids of `text`'s phonemes, as the model makes them (``PiperModel/ids(_:)``).
    static func ids(_ text: String, model: PiperModel) throws -> [Int64] {
        let sentences = try PiperPhonemizer.sentences(text, voice: model.config.espeakVoice)
        return try model.ids(sentences.map(\.phonemes).joined().unicodeScalars.map { Int32(bitPattern: $0.value) })
    }

    @Test("the windows, joined, are the whole decode of the same latent (max difference 1e-4)")
    func windowsEqualTheWholeDecode() throws {
        let (model, split) = try Self.split()
        let latent = try split.latent(
            ids: try Self.ids(Self.sentence, model: model), scales: [0.667, 1, 0.8], speaker: nil)
        let windows = PiperSplitModel.windows(frames: latent.frames)
        #expect(windows.count >= 3, "\(latent.frames) frames")
        #expect(windows.first?.count == PiperSplitModel.firstWindow)
        let whole = try split.decode(latent, window: 0..<latent.frames, speaker: nil)
        let streamed = try windows.flatMap { try split.decode(latent, window: $0, speaker: nil) }
        #expect(whole.count == latent.frames * split.layout.hop)
        #expect(streamed.count == whole.count)
        let worst = zip(whole, streamed).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1e-4, "max difference \(worst)")

        // As 16-bit PCM the windows join without a click: each is the whole's, sample for sample
        // (within one step of rounding), faded only at the sentence's ends.
        let peak = Float(split.layout.peak)
        let pcmWhole = PiperSynthesizer.pcm(whole, gain: 1, sampleRate: 22050, peak: peak)
        var pcmStreamed: [Int16] = []
        var start = 0
        for (index, window) in windows.enumerated() {
            let audio = Array(streamed[start..<start + window.count * split.layout.hop])
            start += audio.count
            pcmStreamed += PiperSynthesizer.pcm(
                audio, gain: 1, sampleRate: 22050, peak: peak, fadeIn: index == 0, fadeOut: index == windows.count - 1)
        }
        let step = zip(pcmWhole, pcmStreamed).map { abs(Int($0) - Int($1)) }.max() ?? 99
        #expect(step <= 1, "PCM differs by \(step)")
    }

    @Test("a reply's first sentence comes in windows, the first well before the sentence's end; later ones whole")
    func firstSentenceStreams() throws {
        _ = try Self.split()
        let sentences = try Self.sentenceChunks(Self.sentence + " It is time for lunch.")
        #expect(sentences.count == 2)
        #expect(sentences[0].count >= 3, "the first sentence in \(sentences[0].count) chunks")
        #expect(sentences[1].count == 1)
        #expect(sentences[0][0].count == PiperSplitModel.firstWindow * 256)
        // Speech at about Piper's level, never clipped hard.
        let first = sentences[0].flatMap { $0 }
        #expect(first.rms > 1500, "RMS \(first.rms)")
        #expect(first.count { abs(Int($0)) >= 32767 } < 5)
    }

    @Test("from its second window on, a streamed sentence is as loud as Piper makes it: scaled by its own peak")
    func secondWindowOnIsPipersLevel() throws {
        let (model, split) = try Self.split()
        // No noise in the latent (noise scales 0): Piper's noise moves the loudest sample from run
        // to run, sometimes past the second window, which this test's premise needs it within.
        let latent = try split.latent(
            ids: try Self.ids(Self.sentence, model: model), scales: [0, 1, 0], speaker: nil)
        let windows = try PiperSplitModel.windows(frames: latent.frames).map {
            try split.decode(latent, window: $0, speaker: nil)
        }
        let whole = Array(windows.joined())
        let peak = whole.map(abs).max() ?? 0
        // The sentence's loudest sample is in its first two windows (as for most sentences).
        try #require(windows.prefix(2).joined().map(abs).max() == peak)
        let pipers = PiperSynthesizer.pcm(whole, gain: 1, sampleRate: 22050)
        var scale = PiperSynthesizer.StreamedScale(estimate: Float(split.layout.peak) * 1.2)
        var streamed: [Int16] = []
        for (index, window) in windows.enumerated() {
            let (peak, previous) = scale.next(window)
            streamed += PiperSynthesizer.pcm(
                window, gain: 1, sampleRate: 22050, peak: peak, rampFrom: previous, fadeIn: index == 0,
                fadeOut: index == windows.count - 1)
        }
        let from = windows[0].count + 22050 / 100  // after the first window and the 10 ms ramp
        let step = zip(pipers[from...], streamed[from...]).map { abs(Int($0) - Int($1)) }.max() ?? 99
        #expect(step <= 1, "differs from Piper's by \(step)")
        // The first window, scaled by the voice's estimate, is never louder than Piper's.
        #expect(zip(pipers.prefix(windows[0].count), streamed).allSatisfy { abs(Int($1)) <= abs(Int($0)) + 1 })
    }

    @Test("each window is scaled by the loudest sample decoded so far, the first by the voice's estimate")
    func windowScales() {
        var scale = PiperSynthesizer.StreamedScale(estimate: 0.8)
        let windows: [[Float]] = [[0.1, -0.2], [0.5, -0.3], [0.4], [-0.6]]
        let scaled = windows.map { scale.next($0) }
        #expect(scaled.map(\.peak) == [0.8, 0.5, 0.5, 0.6])
        #expect(scaled.map(\.previous) == [nil, 0.8, 0.5, 0.5])
        // The scale moves from the window before's over 10 ms: a steady tone has no step at the join.
        let tone = [Float](repeating: 0.25, count: 2000)
        let before = PiperSynthesizer.pcm(tone, gain: 1, sampleRate: 22050, peak: 0.8, fadeIn: false, fadeOut: false)
        let after = PiperSynthesizer.pcm(
            tone, gain: 1, sampleRate: 22050, peak: 0.5, rampFrom: 0.8, fadeIn: false, fadeOut: false)
        let joined = before + after
        let step = zip(joined, joined.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(step < 40, "a step of \(step)")  // the ramp's slope; unramped, 6,144
        #expect(after.last == Int16(0.25 / 0.5 * 32767))
    }

    @Test("beside another reply on the same model, the first sentence is made whole (throughput first)")
    func busyModelDecodesWhole() throws {
        let (model, _) = try Self.split()
        // A slot held on a thread of its own until the reply asks for one: the reply has seen the
        // model busy by then, and on one core (one slot) it runs once the slot is given back.
        let held = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let replyAsked = Locked(false)
        Thread.detachNewThread {
            model.turns.run(turn: 0) {
                let before = Self.lastTicket(model.turns.history)
                held.signal()
                // The deadline only stops the wait: the expectation below says whether it came.
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline, !Self.asked(after: before, model.turns.history) { usleep(1000) }
                replyAsked.withLock { $0 = Self.asked(after: before, model.turns.history) }
            }
            released.signal()
        }
        held.wait()
        let sentences = try Self.sentenceChunks(Self.sentence)
        released.wait()
        #expect(replyAsked.withLock { $0 }, "the reply never asked for a slot")
        #expect(sentences.map(\.count) == [1])
    }

    static func lastTicket(_ history: [FairTurns.Event]) -> UInt64? {
        history.map { event in
            switch event {
            case .asked(let waiter), .granted(let waiter): waiter.ticket
            }
        }.max()
    }

    /// Whether someone asked for a slot after the ticket `before`.
    static func asked(after before: UInt64?, _ history: [FairTurns.Event]) -> Bool {
        history.contains { event in
            guard case .asked(let waiter) = event else { return false }
            return before.map { waiter.ticket > $0 } ?? true
        }
    }

    @Test("a split model runs on its parts alone, and its very first reply streams")
    func splitModelRunsOnItsParts() throws {
        let synthesizer = PiperSynthesizer(settings: .init(streamsFirstSentence: true))
        let model = try synthesizer.model(for: Joe.voice)
        #expect(model.split != nil)
        #expect(model.loadedModel.lastPathComponent.contains(".front."), "\(model.loadedModel.path)")
        var chunks = 0
        try synthesizer.synthesize(Self.sentence, options: SpeechOptions(voice: Joe.voice), onProgress: nil) { _ in
            chunks += 1
        }
        #expect(chunks >= 3)
    }

    @Test(
        "installing a voice splits it when install-piper's tools are there; its parts load",
        .enabled(if: PiperModelSplitter.toolDirectory() != nil))
    func installSplits() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("split-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = try Joe.original(named: "en_US-test-medium.onnx", in: scratch)
        let prepared = try PiperVoicePreparation.prepare(
            model: original, into: scratch.appendingPathComponent("models"))
        let runtime = try OnnxRuntime.shared()
        let layout = PiperSplitModel.currentLayout(for: prepared.model, onnxRuntime: try #require(runtime.version))
        #expect(layout?.hop == 256)
        let split = try PiperSplitModel.load(for: prepared.model, runtime: runtime, session: .standard())
        #expect(split != nil)
    }

    @Test("text that continues a reply already under way (a Wyoming stream's later sentence) is made whole")
    func continuationDecodesWhole() throws {
        _ = try Self.split()
        var options = SpeechOptions(voice: Joe.voice)
        options.continuesReply = true
        #expect(try Self.sentenceChunks(Self.sentence, options: options).map(\.count) == [1])
    }

    /// Each sentence's chunks, told apart by the progress calls.
    static func sentenceChunks(_ text: String, options: SpeechOptions = SpeechOptions(voice: Joe.voice)) throws
        -> [[[Int16]]]
    {
        var sentences: [[[Int16]]] = [[]]
        try synthesizer.synthesize(
            text, options: options, onProgress: { _ in sentences.append([]) },
            onChunk: { chunk in sentences[sentences.count - 1].append(Array(chunk.samples)) })
        return Array(sentences.dropLast())
    }
}
