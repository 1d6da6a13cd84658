import SpeakKit

/// A test-only engine that speaks by script: so many chunks of a steady tone, a failure before or
/// after a given chunk, a change of rate mid-reply, the speakers and phonemes it tells. Registered
/// under any engine name, it plugs into a ``SynthesizerRegistry`` as a real engine does, so the
/// engine's policy (fallback, refusal, description) is tested in process with no front end edited.
public struct ScriptedSynthesizer: Synthesizer {
    public struct Script: Sendable {
        /// Chunks in a complete reply.
        public var chunks = 3
        public var samplesPerChunk = 160
        public var sampleRate = 16000
        /// Fails once this many chunks have been delivered (0: before the first); `nil` never fails.
        public var failsAfter: Int?
        /// What it fails with: by default a fault a local voice may answer for (an upstream down).
        public var failure: any Error & Sendable = EngineDown()
        /// From this chunk on (0-based), chunks come at `rate`: an engine breaking its promise.
        public var rateChange: (chunk: Int, rate: Int)?
        /// Named speakers, in the model's order, each the `speaker` setting it sets.
        public var speakers: [String] = []
        /// What ``Synthesizer/problems(with:)`` reports for every voice given.
        public var problems: [String: String] = [:]
        /// What ``Synthesizer/phonemes(of:options:ipa:)`` answers, the text appended.
        public var phonemes: String?
        public var features: SynthesisFeatures = [.rate, .streaming]

        public init() {}
    }

    /// A remote engine's failure, after which a local voice may answer.
    public struct EngineDown: FallbackEligible, CustomStringConvertible {
        public init() {}
        public var description: String { "the scripted engine is down" }
    }

    /// A failure no other voice answers for (a bad setting).
    public struct Fault: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "the scripted engine failed" }
    }

    public let script: Script
    /// The texts it was asked to speak, in order.
    public let requests = Locked<[String]>([])
    /// Each request's ``SpeechOptions/continuesReply``, in order.
    public let continuations = Locked<[Bool]>([])

    public init(_ script: Script = Script()) { self.script = script }

    public var features: SynthesisFeatures { script.features }

    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
        onChunk: (PCMChunk) throws -> Void
    ) throws {
        requests.withLock { $0.append(text) }
        continuations.withLock { $0.append(options.continuesReply) }
        let tone = (0..<script.samplesPerChunk).map { Int16($0 % 2 == 0 ? 1000 : -1000) }
        for index in 0..<script.chunks {
            if index == script.failsAfter { throw script.failure }
            let rate = script.rateChange.map { index >= $0.chunk ? $0.rate : script.sampleRate } ?? script.sampleRate
            try tone.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: rate)) }
            onProgress?(Double(index + 1) / Double(script.chunks))
        }
        if script.failsAfter == script.chunks { throw script.failure }
    }

    public func problems(with voices: [Voice]) -> [String: String] { script.problems }

    public func sampleRate(of voice: Voice) -> Int? { script.sampleRate }

    public func speakers(of voice: Voice) -> [String] { script.speakers }

    public func voice(_ voice: Voice, speakingAs speaker: String) -> Voice? {
        guard let index = script.speakers.firstIndex(of: speaker) else { return nil }
        return voice.with(settings: .object(["speaker": .number(Double(index))]))
    }

    public func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? {
        script.phonemes.map { "\($0) \(text)" }
    }
}
