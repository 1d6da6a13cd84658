import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakPiper

/// Silero VAD as Scripts/install-deps installs it, on the real ONNX Runtime, fed Piper's joe voice
/// and noise made here.
@Suite("Silero voice activity", .serialized)
struct SileroTests {
    static let path = "/usr/local/share/speak/models/" + SileroModel.fileName
    /// One model for the suite, as one serves every session of a server.
    static let model = try! SileroModel(path: path)
    static let rate = TranscriptionEngine.sampleRate

    /// `text` spoken by joe, at 16 kHz.
    static func speech(_ text: String) throws -> [Int16] {
        let audio = try Joe.pcm(text)
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: rate)
        return resampler.process(audio.samples) + resampler.finish()
    }

    static func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * Double(rate))) }

    /// `seconds` of Gaussian noise with an RMS of `level` (3277: -20 dBFS, louder than the level
    /// detector's -45), white or pink (Paul Kellet's filter: equal energy per octave, as a fan or
    /// a crowd), the same every time.
    static func noise(seconds: Double, level: Double, pink: Bool = false) -> [Int16] {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func uniform() -> Double {
            // SplitMix64: seeded, so a failure can be reproduced.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 0.5) / Double(1 << 53)
        }
        var poles = [Double](repeating: 0, count: 7)
        let values = (0..<Int(seconds * Double(rate))).map { _ -> Double in
            let white = (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
            guard pink else { return white }
            let gains = [0.0555179, 0.0750759, 0.1538520, 0.3104856, 0.5329522, -0.0168980]
            for (index, (pole, gain)) in zip([0.99886, 0.99332, 0.96900, 0.86650, 0.55000, -0.7616], gains).enumerated()
            {
                poles[index] = pole * poles[index] + white * gain
            }
            defer { poles[6] = white * 0.115926 }
            return poles.reduce(0, +) + white * 0.5362
        }
        let rms = (values.reduce(0) { $0 + $1 * $1 } / Double(max(1, values.count))).squareRoot()
        return values.map { Int16(max(-32768, min(32767, $0 / rms * level))) }
    }

    /// The detector's probability for each whole frame of `samples`.
    static func probabilities(_ samples: [Int16], _ detector: any VoiceActivityDetector) throws -> [Double] {
        try stride(from: 0, through: samples.count - detector.frameLength, by: detector.frameLength).map {
            try detector.speechProbability(samples[$0..<($0 + detector.frameLength)])
        }
    }

    @Test("the model's inputs and outputs are read from the file: audio, a [2, batch, 128] state, the rate")
    func signature() throws {
        let model = Self.model
        #expect(model.audioInput == "input" && model.stateInput == "state" && model.rateInput == "sr")
        #expect(model.probabilityOutput == "output" && model.stateOutput == "stateN")
        #expect(model.stateShape == [2, 1, 128])
    }

    @Test("silence, a quiet room's hiss and loud white or pink noise are not speech")
    func notSpeech() throws {
        let detector = try SileroDetector(model: Self.model)
        for (name, audio) in [
            ("silence", Self.silence(2)), ("hiss at -61 dBFS", Self.noise(seconds: 2, level: 30)),
            ("white noise at -20 dBFS", Self.noise(seconds: 2, level: 3277)),
            ("pink noise at -20 dBFS", Self.noise(seconds: 2, level: 3277, pink: true)),
        ] {
            detector.reset()
            let highest = try Self.probabilities(audio, detector).max() ?? 1
            #expect(highest < 0.3, "\(name): a frame at \(highest)")
        }
        // Where the level detector hears speech in the noise: what Silero is for.
        let level = try Self.probabilities(Self.noise(seconds: 2, level: 3277), LevelDetector())
        #expect(level.allSatisfy { $0 == 1 })
    }

    @Test("most frames of speech are speech")
    func speech() throws {
        let detector = try SileroDetector(model: Self.model)
        let speech = try Self.speech("The build finished a few minutes ago, and every test passed.")
        let start = Date()
        let probabilities = try Self.probabilities(speech, detector)
        let seconds = Date().timeIntervalSince(start)
        print(
            "silero: \(probabilities.count) frames of 32 ms judged in \(String(format: "%.1f", seconds * 1000)) ms "
                + "(\(String(format: "%.3f", seconds * 1000 / Double(probabilities.count))) ms a frame)")
        let spoken = probabilities.filter { $0 >= 0.5 }.count
        #expect(Double(spoken) >= 0.8 * Double(probabilities.count), "\(spoken) of \(probabilities.count) frames")
    }

    @Test("each frame is judged with what came before it, and reset forgets it: the same audio, the same judgement")
    func reset() throws {
        let detector = try SileroDetector(model: Self.model)
        let speech = try Self.speech("Turn left at the next corner.")
        let first = try Self.probabilities(speech, detector)
        let carried = try Self.probabilities(speech, detector)
        #expect(carried != first, "the second hearing starts from the first's state")
        detector.reset()
        #expect(try Self.probabilities(speech, detector) == first)
        // Detectors on one model keep their own state.
        let other = try SileroDetector(model: Self.model)
        #expect(try Self.probabilities(speech, other) == first)
    }

    @Test("detectors on one model, on two threads at once, each judge as one alone does")
    func sharedModel() throws {
        let speech = try Self.speech("Turn left at the next corner.")
        let alone = try Self.probabilities(speech, SileroDetector(model: Self.model))
        let heard = Locked<[[Double]]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let probabilities = (try? SileroDetector(model: Self.model)).flatMap { try? Self.probabilities(speech, $0) }
            heard.withLock { $0.append(probabilities ?? []) }
        }
        #expect(heard.withLock { $0 } == [alone, alone])
    }

    @Test("live: loud noise between two sentences starts no turn with Silero, where the level detector starts one")
    func liveTurns() throws {
        let spoken = try ["The meeting starts at nine.", "Please bring the report."].map(Self.speech)
        // Each stretch alone: where white turns straight into pink, the change can sound like an onset.
        let noise =
            Self.noise(seconds: 1.5, level: 3277) + Self.silence(1) + Self.noise(seconds: 1.5, level: 3277, pink: true)
        let noiseStart = Double(Self.rate / 2 + spoken[0].count + Self.rate) / Double(Self.rate)
        let noiseEnd = noiseStart + Double(noise.count) / Double(Self.rate)
        let audio =
            Self.silence(0.5) + spoken[0] + Self.silence(1) + noise + Self.silence(1) + spoken[1] + Self.silence(1)

        func turns(_ detector: any VoiceActivityDetector) throws -> (started: [Double], completed: Int) {
            let live = LiveTranscription(
                transcriber: CapturingTranscriber(), format: .transcription, detector: detector)
            let events = try TestAudio.feed(audio, to: live).map(\.event)
            let started = events.compactMap { if case .speechStarted(let at) = $0 { at } else { nil } }
            return (started, events.filter { if case .completed = $0 { true } else { false } }.count)
        }
        // A turn's start includes up to a padding of the audio before the frame first heard as speech.
        let before = LiveTranscription.Settings().padding + Double(SileroModel.frameLength) / Double(Self.rate)
        let inNoise = { (start: Double) in start >= noiseStart - before && start < noiseEnd }
        let silero = try turns(SileroDetector(model: Self.model))
        #expect(silero.completed == 2 && silero.started.count == 2, "turns starting at \(silero.started)")
        #expect(!silero.started.contains(where: inNoise), "noise from \(noiseStart) s")
        let level = try turns(LevelDetector())
        #expect(
            level.started.contains(where: inNoise), "turns starting at \(level.started); noise from \(noiseStart) s")
    }

    @Test("a model that cannot be used gives level detectors, and says why once")
    func unusable() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("silero-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let truncated = scratch.appendingPathComponent(SileroModel.fileName)
        try Data(contentsOf: URL(fileURLWithPath: Self.path)).prefix(100_000).write(to: truncated)
        let faults = Locked<[String]>([])
        let activity = SileroModel.voiceActivity(at: truncated.path) { error in
            faults.withLock { $0.append(error.description) }
        }
        #expect(activity.name == "level")
        #expect(activity.problem()?.contains("truncated") == true, "\(activity.problem() ?? "no problem")")
        #expect(try activity.make() is LevelDetector)
        let said = faults.withLock { $0 }
        #expect(said.count == 1 && said[0].contains("truncated") && said[0].contains(truncated.path), "\(said)")
        // Whole, but with an operator ONNX Runtime does not know: it fails when the first detector is made.
        let unknownOperator = scratch.appendingPathComponent("unknown-operator.onnx")
        let model = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        try model.replacing(Data("Sigmoid".utf8), with: Data("Sigmxid".utf8)).write(to: unknownOperator)
        let failing = SileroModel.voiceActivity(at: unknownOperator.path) { error in
            faults.withLock { $0.append(error.description) }
        }
        #expect(failing.name == "silero")
        #expect(failing.problem() == nil, "not known before a session makes a detector")
        #expect(try failing.make() is LevelDetector && failing.make() is LevelDetector)
        #expect(failing.problem()?.contains("Sigmxid") == true, "\(failing.problem() ?? "no problem")")
        let failures = faults.withLock { $0 }.dropFirst()
        #expect(failures.count == 1 && failures.first?.contains("Sigmxid") == true, "\(failures)")
        // An ONNX model that is not Silero's: joe's voice.
        #expect(throws: SileroError.self) { try SileroModel(path: try Joe.synthesizer.modelFile(for: Joe.voice).path) }
        #expect(SileroModel.find(in: [scratch.path, "/nonexistent"]) == truncated.path)
        #expect(SileroModel.find(in: ["/nonexistent"]) == nil)
        let installed = SileroModel.voiceActivity(at: Self.path) { _ in Issue.record("the installed model faulted") }
        #expect(installed.name == "silero")
        #expect(try installed.make() is SileroDetector)
        #expect(installed.problem() == nil)
    }
}
