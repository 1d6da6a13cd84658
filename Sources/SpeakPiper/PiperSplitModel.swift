import FoundationEssentials
import Glibc

/// A Piper model split at its HiFi-GAN decoder's input (`Scripts/split-piper.py`, at install): the
/// front (text encoder, duration predictor, flow) makes the whole sentence's latent at once, so its
/// timing and prosody are the whole model's; the decoder then turns it into audio a window at a time,
/// each window decoded with ``context`` latent frames on either side, which makes the joins exact
/// (the decoder's reach is shorter). The first window is small, so a sentence's first audio leaves
/// after the front and a fraction of the decoding; later ones are larger, for less overhead.
final class PiperSplitModel: Sendable {
    /// `NAME.split.json`, written by the split.
    struct Layout: Decodable, Sendable {
        /// The latent's name: the front's output and the decoder's first input.
        var latent: String
        var decoderInputs: [String]
        /// Samples per latent frame.
        var hop: Int
        /// The loudest sample of the voice's sentences at install: a streamed sentence is scaled by it.
        var peak: Double
        var onnxruntime: String
    }

    /// Frames of context: past the decoder's reach, so the windows joined equal the whole decode.
    static let context = 10
    /// 32 frames are ~0.37 s of audio, which covers decoding the next window on a machine at rest.
    static let firstWindow = 32
    static let laterWindow = 256

    let layout: Layout
    let front: OnnxSession
    let decoder: OnnxSession

    /// `NAME.split.json` beside `NAME.onnx`.
    static func layoutFile(for model: URL) -> URL { model.deletingPathExtension().appendingPathExtension("split.json") }

    /// `NAME.PART.optimized-onnxruntime-VERSION.onnx` beside `NAME.onnx`.
    static func partFile(_ part: String, for model: URL, onnxRuntime version: String) -> URL {
        model.deletingPathExtension().appendingPathExtension("\(part).optimized-onnxruntime-\(version).onnx")
    }

    /// The layout of `model`'s split parts for ONNX Runtime `version`, when they are there and
    /// current (not another ONNX Runtime's, no older than the model).
    static func currentLayout(for model: URL, onnxRuntime version: String) -> Layout? {
        guard let data = FileManager.default.contents(atPath: layoutFile(for: model).path),
            let layout = try? JSONDecoder().decode(Layout.self, from: data), layout.onnxruntime == version,
            layout.hop > 0, layout.peak > 0
        else { return nil }
        func modified(_ url: URL) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        }
        let parts = ["front", "decoder"].map { partFile($0, for: model, onnxRuntime: version) }
        let made = parts.compactMap(modified)
        guard let source = modified(model), made.count == 2, made.allSatisfy({ $0 >= source }) else { return nil }
        return layout
    }

    /// The split parts of `model` for this ONNX Runtime, loaded; `nil` when the model has none that
    /// are current (no split, another ONNX Runtime's, or older than the model).
    static func load(for model: URL, runtime: OnnxRuntime, session settings: SessionSettings) throws(PiperError)
        -> PiperSplitModel?
    {
        guard let version = runtime.version, let layout = currentLayout(for: model, onnxRuntime: version) else {
            return nil
        }
        let front = partFile("front", for: model, onnxRuntime: version)
        let decoder = partFile("decoder", for: model, onnxRuntime: version)
        return PiperSplitModel(
            layout: layout,
            front: try runtime.session(front.path, optimizationLevel: 0, arena: settings.arena),
            decoder: try runtime.session(decoder.path, optimizationLevel: 0, arena: settings.arena))
    }

    private init(layout: Layout, front: OnnxSession, decoder: OnnxSession) {
        self.layout = layout
        self.front = front
        self.decoder = decoder
    }

    /// The latent of one sentence: `ids` as Piper makes them, `scales` (noise, length, noise w).
    func latent(ids: [Int64], scales: [Float], speaker: Int?, shrinkingArena: Bool = false) throws(PiperError)
        -> Latent
    {
        let inputs = PiperModel.inputs(ids: ids, scales: scales, speaker: speaker)
        let (values, shape) = try front.run(inputs, output: layout.latent, shrinkingArena: shrinkingArena)
        guard shape.count == 3, shape[0] == 1, shape[1] > 0 else {
            throw .generationFailed(front.path, "a latent of shape \(shape)")
        }
        return Latent(values: values, channels: shape[1], frames: shape[2])
    }

    /// A sentence's latent, channels by frames.
    struct Latent: Sendable {
        var values: [Float]
        var channels: Int
        var frames: Int

        /// Frames `range` of every channel.
        func frames(_ range: Range<Int>) -> [Float] {
            var out: [Float] = []
            out.reserveCapacity(channels * range.count)
            for channel in 0..<channels {
                out += values[channel * frames + range.lowerBound..<channel * frames + range.upperBound]
            }
            return out
        }
    }

    /// The windows of a latent of `frames` frames: the frames each one gives audio for.
    static func windows(frames: Int) -> [Range<Int>] {
        var windows: [Range<Int>] = []
        var start = 0
        while start < frames {
            let end = min(start + (windows.isEmpty ? firstWindow : laterWindow), frames)
            windows.append(start..<end)
            start = end
        }
        return windows
    }

    /// The audio of frames `window` of `latent`, decoded with ``context`` frames either side.
    func decode(_ latent: Latent, window: Range<Int>, speaker: Int?, shrinkingArena: Bool = false)
        throws(PiperError) -> [Float]
    {
        let low = max(window.lowerBound - Self.context, 0)
        let high = min(window.upperBound + Self.context, latent.frames)
        var inputs = [
            OnnxInput(
                name: layout.latent, shape: [1, latent.channels, high - low], values: .floats(latent.frames(low..<high))
            )
        ]
        if let speaker, layout.decoderInputs.contains("sid") {
            inputs.append(OnnxInput(name: "sid", shape: [1], values: .integers([Int64(speaker)])))
        }
        let (audio, _) = try decoder.run(inputs, output: "output", shrinkingArena: shrinkingArena)
        let first = (window.lowerBound - low) * layout.hop
        let last = (window.upperBound - low) * layout.hop
        guard audio.count >= last else {
            throw .generationFailed(decoder.path, "\(audio.count) samples for \(high - low) frames")
        }
        return Array(audio[first..<last])
    }

    /// One sentence's audio, handed to `body` window by window (`last` on the final one); stops
    /// early when `body` returns false.
    func stream(
        ids: [Int64], scales: [Float], speaker: Int?, _ body: (_ audio: [Float], _ last: Bool) -> Bool
    ) throws(PiperError) {
        let latent = try latent(ids: ids, scales: scales, speaker: speaker)
        let windows = Self.windows(frames: latent.frames)
        for (index, window) in windows.enumerated() {
            guard body(try decode(latent, window: window, speaker: speaker), index == windows.count - 1) else { return }
        }
    }
}
