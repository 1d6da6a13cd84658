import Foundation
import SpeakKit

/// What a Wyoming server offers, on the one `SpeechEngine`: its voices, its transcriber, limits.
public struct WyomingService: Sendable {
    /// The transcriber as `info` describes it.
    public struct TranscriberInfo: Sendable {
        public var description: String
        /// The model's name (`base`, `tiny.en`).
        public var model: String
        public var languages: [String]

        public init(description: String, model: String, languages: [String]) {
            self.description = description
            self.model = model
            self.languages = languages
        }
    }

    /// Named speakers of multi-speaker voices (Piper's): the names for `info`, and the voice that
    /// speaks as one of them (`nil` for a name the voice does not have).
    public struct Speakers: Sendable {
        public var names: @Sendable (Voice) -> [String]
        public var voice: @Sendable (Voice, String) -> Voice?

        public init(
            names: @escaping @Sendable (Voice) -> [String], voice: @escaping @Sendable (Voice, String) -> Voice?
        ) {
            self.names = names
            self.voice = voice
        }

        public static let none = Speakers(names: { _ in [] }, voice: { voice, _ in nil })
    }

    public var engine: SpeechEngine
    /// Converts and transcribes every session's audio.
    public var transcription: TranscriptionEngine
    /// `nil` when no transcriber can run here: `info` then offers no `asr` program.
    public var transcriberInfo: TranscriberInfo?
    public var speakers: Speakers
    public var limits: WyomingLimits
    /// The version `info` gives for the programs.
    public var version: String
    private let infoCache = InfoCache()

    public init(
        engine: SpeechEngine, transcriber: any Transcriber, transcriberInfo: TranscriberInfo?,
        speakers: Speakers = .none, limits: WyomingLimits = WyomingLimits(), version: String = "1.0"
    ) {
        self.init(
            engine: engine, transcription: TranscriptionEngine(transcriber: transcriber),
            transcriberInfo: transcriberInfo, speakers: speakers, limits: limits, version: version)
    }

    /// On `transcription` as composed for the other front ends (its detector of speech included).
    public init(
        engine: SpeechEngine, transcription: TranscriptionEngine, transcriberInfo: TranscriberInfo?,
        speakers: Speakers = .none, limits: WyomingLimits = WyomingLimits(), version: String = "1.0"
    ) {
        self.engine = engine
        self.transcription = transcription
        self.transcriberInfo = transcriberInfo
        self.speakers = speakers
        self.limits = limits
        self.version = version
    }

    /// The voices that can speak here now: carried engine, model installed, upstream reachable.
    public var installedVoices: [Voice] {
        engine.catalog.voices.filter { voice in (try? engine.availability(of: voice)?.get()) != nil }
    }

    /// The answer to `describe`. Kept for a few seconds: Home Assistant asks on every connection and
    /// waits only 1 s, and a remote voice's check may take longer than that.
    public func info() -> WyomingEvent {
        infoCache.value { makeInfo() }
    }

    /// Both programs are named `speak`: Home Assistant titles the integration's entry after the
    /// first installed program (speech-to-text first) and names the entities after them.
    static let programName = "speak"

    private func makeInfo() -> WyomingEvent {
        let attribution: JSONValue = .object(["name": .string("speak"), "url": .string("")])
        func artifact(_ name: String, _ description: String, _ extra: [String: JSONValue]) -> JSONValue {
            .object(
                [
                    "name": .string(name), "attribution": attribution, "installed": .bool(true),
                    "description": .string(description), "version": .string(version),
                ].merging(extra) { $1 })
        }
        let voices = installedVoices.map { voice -> JSONValue in
            var extra: [String: JSONValue] = [
                "languages": .array(Self.languageTags(voice.language).map { .string($0) })
            ]
            let names = speakers.names(voice)
            extra["speakers"] = names.isEmpty ? .null : .array(names.map { .object(["name": .string($0)]) })
            let kind = (try? engine.synthesizer(for: voice))?.kind(of: voice) ?? voice.engine
            return artifact(voice.name, Self.pickerName(voice, kind: kind), extra)
        }
        let tts = artifact(
            Self.programName, "speak: espeak-ng and neural (Piper) voices",
            ["voices": .array(voices), "supports_synthesize_streaming": .bool(true)])
        var asr: [JSONValue] = []
        if let transcriber = transcriberInfo {
            let languages: JSONValue = .array(transcriber.languages.map { .string($0) })
            let model = artifact(transcriber.model, transcriber.description, ["languages": languages])
            asr.append(
                artifact(
                    Self.programName, "speak: \(transcriber.description)",
                    [
                        // Streamed as words become final. The client still ends the audio
                        // where speech ends: this server's detector splits turns, it ends nothing.
                        "models": .array([model]), "supports_transcript_streaming": .bool(true),
                        "requires_external_vad": .bool(true),
                    ]))
        }
        let empty: JSONValue = .array([])
        return WyomingEvent(
            "info",
            [
                "asr": .array(asr), "tts": .array([tts]), "handle": empty, "intent": empty, "wake": empty, "mic": empty,
                "snd": empty,
            ])
    }

    /// What Home Assistant's voice picker shows for `voice` (its `description`): the name and the
    /// kind of voice its engine says it is (``Synthesizer/kind(of:)``), short, as wyoming-piper's
    /// "kareem (low)". The language is the picker's own.
    static func pickerName(_ voice: Voice, kind: String) -> String {
        // A plain lowercase name reads as a name; one such as en_US-lessac-medium stays as it is.
        let name =
            voice.name.allSatisfy({ $0.isLetter && $0.isLowercase })
            ? voice.name.prefix(1).uppercased() + voice.name.dropFirst() : voice.name
        return "\(name) (\(kind))"
    }

    /// The tags a voice is listed under: its own, and its bare language too (`en-US` and `en`).
    /// Home Assistant lists a voice only under the exact tags it names, and its voice picker asks
    /// for the tag the pipeline's speech language has, which may be the bare one.
    static func languageTags(_ tag: String) -> [String] {
        let bare = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? tag
        return bare == tag || bare.isEmpty ? [tag] : [tag, bare]
    }
}

/// The last `info`, made again once it is older than `lifetime` seconds.
private final class InfoCache: Sendable {
    private let lifetime: TimeInterval = 10
    private let stored = Locked<(made: TimeInterval, event: WyomingEvent)?>(nil)

    func value(_ make: () -> WyomingEvent) -> WyomingEvent {
        let now = ProcessInfo.processInfo.systemUptime
        if let stored = stored.withLock({ $0 }), now - stored.made < lifetime { return stored.event }
        let event = make()
        stored.withLock { $0 = (now, event) }
        return event
    }
}
