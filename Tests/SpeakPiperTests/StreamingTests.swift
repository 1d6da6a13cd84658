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
    static let synthesizer = PiperSynthesizer(streamsFirstSentence: true)

    static func split() throws -> (PiperModel, PiperSplitModel) {
        let model = try synthesizer.model(for: Joe.voice)
        return (model, try #require(model.split, "no split parts beside \(model.files.model.path)"))
    }

    /// Piper's ids of `text`'s phonemes, as the model's stream makes them.
    static func ids(_ text: String, model: PiperModel) throws -> [Int64] {
        let sentences = try PiperPhonemizer.sentences(text, voice: model.config.espeakVoice)
        let map = model.config.phonemeIDs
        var ids = [Int64(map["^"]!), Int64(map["_"]!)]
        for scalar in sentences.map(\.phonemes).joined().unicodeScalars {
            if let id = map[scalar] { ids += [Int64(id), Int64(map["_"]!)] }
        }
        return ids + [Int64(map["$"]!)]
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
        // Speech, at about Piper's level: scaled by the voice's loudest peak, never clipped hard.
        let first = sentences[0].flatMap { $0 }
        #expect(first.rms > 1500, "RMS \(first.rms)")
        #expect(first.count { abs(Int($0)) >= 32767 } < 20)
    }

    @Test("beside another reply on the same model, the first sentence is made whole (throughput first)")
    func busyModelDecodesWhole() throws {
        let (model, _) = try Self.split()
        guard model.turns.slots > 1 else { return }  // one core: the reply would wait for the slot held here
        let sentences = try model.turns.run(turn: 0) { try Self.sentenceChunks(Self.sentence) }
        #expect(sentences.map(\.count) == [1])
    }

    @Test("a split model runs on its parts alone, and its very first reply streams")
    func splitModelRunsOnItsParts() throws {
        let synthesizer = PiperSynthesizer(streamsFirstSentence: true)
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
