import FoundationEssentials
import Glibc

/// A piece of synthesised speech: mono 16-bit PCM at its sample rate.
public struct PCMChunk {
    public let samples: UnsafeBufferPointer<Int16>
    public let sampleRate: Int

    public init(samples: UnsafeBufferPointer<Int16>, sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }
}

/// What an engine honours of ``SpeechOptions`` and how it delivers; what it lacks is ignored.
public struct SynthesisFeatures: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let ssml = SynthesisFeatures(rawValue: 1 << 0)
    public static let rate = SynthesisFeatures(rawValue: 1 << 1)
    public static let pitch = SynthesisFeatures(rawValue: 1 << 2)
    public static let volume = SynthesisFeatures(rawValue: 1 << 3)
    /// Chunks arrive while the text is still being synthesised (not all at once at the end), so a
    /// reply can start before it is complete.
    public static let streaming = SynthesisFeatures(rawValue: 1 << 4)
    /// A human-sounding (neural) voice: what a server offers for OpenAI's voice names when installed.
    public static let natural = SynthesisFeatures(rawValue: 1 << 5)
}

/// Text to speech, one implementation per engine: espeak-ng, an upstream server, a neural voice.
/// Voice files name their engine (``Voice/engine``); ``SynthesizerRegistry`` maps names to these.
public protocol Synthesizer: Sendable {
    var features: SynthesisFeatures { get }

    /// Synthesises `text` in `options.voice`, handing PCM to `onChunk` as it is made, every chunk
    /// at the same sample rate. `onProgress` receives the fraction of the text done.
    ///
    /// To cancel, throw from `onChunk`: synthesis stops at once and the error is rethrown.
    func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
        onChunk: (PCMChunk) throws -> Void
    ) throws

    /// What stops these voices (all of this engine) from speaking now, by check name, for a
    /// server's `/ready`: an unreachable upstream, a model that is not installed. Empty when fine.
    /// A check named `voice:NAME` concerns that voice only: the server stays ready without it.
    func problems(with voices: [Voice]) -> [String: String]

    /// The reply already encoded in `format`, for an engine that receives encoded audio (an
    /// upstream's MP3): passed through as it came, not decoded and encoded again. `nil` otherwise.
    func encodedReply(_ text: String, options: SpeechOptions, format: ReplyFormat) throws -> Data?

    /// Where this voice's audio comes from, when that is not this machine (an upstream's URL).
    func source(of voice: Voice) -> String?

    /// The sample rate this voice's PCM will come at, when it is known before synthesis starts
    /// (a player opens its device meanwhile); `nil` when only the first chunk tells.
    func sampleRate(of voice: Voice) -> Int?

    /// The named speakers of a voice whose model speaks as several people, in the model's order;
    /// empty for a voice of one speaker.
    func speakers(of voice: Voice) -> [String]

    /// `voice` speaking as `speaker`, one of ``speakers(of:)``; `nil` for a name it does not have.
    func voice(_ voice: Voice, speakingAs speaker: String) -> Voice?

    /// What the engine would say for `text`, as phonemes: IPA, or with `ipa` false the engine's own
    /// notation (espeak-ng's `-x` mnemonics). `nil` from an engine that does not show its phonemes.
    func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String?

    /// The kind of voice `voice` is, in a word a voice picker shows beside its name (`espeak-ng`,
    /// `neural`): Wyoming's `info` says "Joe (neural)". The voice file's engine name by default.
    func kind(of voice: Voice) -> String
}

extension Synthesizer {
    public func problems(with voices: [Voice]) -> [String: String] { [:] }
    public func encodedReply(_ text: String, options: SpeechOptions, format: ReplyFormat) throws -> Data? { nil }
    public func source(of voice: Voice) -> String? { nil }
    public func sampleRate(of voice: Voice) -> Int? { nil }
    public func speakers(of voice: Voice) -> [String] { [] }
    public func voice(_ voice: Voice, speakingAs speaker: String) -> Voice? { nil }
    public func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? { nil }
    public func kind(of voice: Voice) -> String { voice.engine }
}

/// What the engine of the usual voice (the default) can start before a command knows its voice,
/// so that `speak TEXT` speaks sooner: open its library, name the rate its audio comes at (the
/// device opens meanwhile) and load the rest on another thread. Composed with the engines
/// (``SynthesizerRegistry/warmUp``), so the command names none.
public struct SynthesisWarmUp: Sendable {
    /// The sample rate the usual voice's audio comes at.
    public var sampleRate: Int
    /// Opens the engine's library without loading its data.
    public var openLibrary: @Sendable () -> Void
    /// Starts loading what the engine needs on another thread; its first use waits for it.
    public var prepareInBackground: @Sendable () -> Void

    public init(
        sampleRate: Int, openLibrary: @escaping @Sendable () -> Void,
        prepareInBackground: @escaping @Sendable () -> Void
    ) {
        self.sampleRate = sampleRate
        self.openLibrary = openLibrary
        self.prepareInBackground = prepareInBackground
    }
}

/// The engines one process carries, by the names voice files use. Each is made on first use
/// (loading espeak-ng's data or a neural model is not free) and then shared.
///
/// Pairs in order, not dictionaries: a process carries three engines at most, and a dictionary
/// made first thing costs `speak TEXT` its generic metadata and the runtime's first conformance
/// search, before it can start opening the speaker.
public final class SynthesizerRegistry: Sendable {
    private let makers: KeyValuePairs<String, @Sendable () throws -> any Synthesizer>
    private let made = Locked<[(engine: String, synthesizer: any Synthesizer)]>([])
    /// What the usual voice's engine starts before the voice is known; `nil` when nothing.
    public let warmUp: SynthesisWarmUp?

    public init(
        _ makers: KeyValuePairs<String, @Sendable () throws -> any Synthesizer>, warmUp: SynthesisWarmUp? = nil
    ) {
        self.makers = makers
        self.warmUp = warmUp
    }

    /// Engines whose names this registry knows.
    public var engines: [String] { makers.map(\.key).sorted() }

    public func carries(_ engine: String) -> Bool { makers.contains { $0.key == engine } }

    /// The synthesizer for `engine`, made now if this is its first use.
    public func synthesizer(for engine: String) throws -> any Synthesizer {
        if let made = made.withLock({ $0.first { $0.engine == engine }?.synthesizer }) { return made }
        guard let make = makers.first(where: { $0.key == engine })?.value else {
            throw SynthesisError.engineNotCarried(engine)
        }
        let synthesizer = try make()
        return made.withLock { made in
            if let first = made.first(where: { $0.engine == engine }) { return first.synthesizer }
            made.append((engine, synthesizer))
            return synthesizer
        }
    }
}

/// A reply that cannot be synthesised for a reason of the engine's, not the voice's or the text's.
public enum SynthesisError: Error, Equatable, CustomStringConvertible {
    /// This executable does not carry the engine (the light `speak` has espeak-ng only).
    case engineNotCarried(String)
    /// The engine's model or runtime is not installed; the message names what to install.
    case engineUnavailable(engine: String, reason: String)
    /// The engine's model is there but damaged (truncated, not a model, a bad config).
    case modelDamaged(engine: String, reason: String)

    public var description: String {
        switch self {
        case .engineNotCarried(let engine): "the '\(engine)' engine is not available in this program"
        case .engineUnavailable(let engine, let reason): "the '\(engine)' engine is not available: \(reason)"
        case .modelDamaged(let engine, let reason): "the '\(engine)' engine's model is damaged: \(reason)"
        }
    }
}
