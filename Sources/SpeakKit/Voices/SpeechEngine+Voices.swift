/// Why a front end's request for a voice is refused, each a one-line message for its client.
public enum VoiceRefusal: Error, CustomStringConvertible, Sendable {
    /// No voice has the name.
    case unknownVoice(VoiceError)
    /// The voice has no speaker of the name.
    case unknownSpeaker(voice: String, speaker: String)
    /// No voice that can speak here has the language.
    case noVoiceForLanguage(String)
    /// The voice exists but cannot speak here (its model is missing).
    case unavailable(voice: String, problem: SynthesisError)
    /// A macOS voice's name, of a language no voice here speaks.
    case macVoiceUnspoken(String)

    public var description: String {
        switch self {
        case .unknownVoice(let error): error.description
        case .unknownSpeaker(let voice, let speaker):
            "voice '\(voice)' has no speaker '\(VoiceError.shortened(speaker))'"
        case .noVoiceForLanguage(let language): "no voice speaks '\(VoiceError.shortened(language))'"
        case .unavailable(let voice, let problem): "voice '\(voice)' cannot speak here: \(problem)"
        case .macVoiceUnspoken(let message): message
        }
    }
}

/// The voice the engine chose, and a note for the user when it stands in for a name no voice has
/// (a macOS voice's).
public struct VoiceChoice: Sendable {
    public let voice: Voice
    public let note: String?
}

extension SpeechEngine {
    /// The voice a front end asks for: by `name`, else the best here for `language` (BCP 47, `_`
    /// taken as `-`), else the default voice; as `speaker` if one is named; refused when it cannot
    /// speak here if `refusingUnavailable`. A front end that answers some requests from the cache
    /// asks without the refusal and refuses only what it makes (``reply(_:)``).
    /// - Parameter speakerVoice: the voice speaking as a named speaker, or `nil` when it has none;
    ///   by default what the voice's engine says.
    public func resolveVoice(
        named name: String?, speaker: String? = nil, language: String? = nil, refusingUnavailable: Bool = true,
        speakerVoice: ((Voice, String) -> Voice?)? = nil
    ) throws(VoiceRefusal) -> Voice {
        try chooseVoice(
            named: name, speaker: speaker, language: language, refusingUnavailable: refusingUnavailable,
            speakerVoice: speakerVoice
        ).voice
    }

    /// ``resolveVoice(named:speaker:language:refusingUnavailable:speakerVoice:)``, with the note a
    /// name that no voice has but an alias does (``VoiceAliases``) comes with.
    public func chooseVoice(
        named name: String?, speaker: String? = nil, language: String? = nil, refusingUnavailable: Bool = true,
        speakerVoice: ((Voice, String) -> Voice?)? = nil
    ) throws(VoiceRefusal) -> VoiceChoice {
        var chosen: Voice
        var note: String?
        if name == nil, let language {
            guard let voice = preferredVoice(forLanguage: language) else { throw .noVoiceForLanguage(language) }
            chosen = voice
        } else {
            do { chosen = try voice(named: name) } catch {
                guard let name, let alias = try alias(name) else { throw .unknownVoice(error) }
                (chosen, note) = alias
            }
        }
        if let speaker {
            let speaking: Voice? =
                if let speakerVoice { speakerVoice(chosen, speaker) } else {
                    (try? synthesizer(for: chosen))?.voice(chosen, speakingAs: speaker)
                }
            guard let speaking else { throw .unknownSpeaker(voice: chosen.name, speaker: speaker) }
            chosen = speaking
        }
        if refusingUnavailable, case .failure(let problem)? = availability(of: chosen) {
            throw .unavailable(voice: chosen.name, problem: problem)
        }
        return VoiceChoice(voice: chosen, note: note)
    }

    /// The voice OpenAI's voice names get: the most natural English voice that speaks here, else
    /// the built-in default. Found once, as it asks every voice's engine.
    public var openAIVoice: Voice {
        englishVoice.withLock { voice in
            if let voice { return voice }
            let found = preferredVoice(forLanguage: "en") ?? VoiceCatalog.builtInDefault
            voice = found
            return found
        }
    }

    private func alias(_ name: String) throws(VoiceRefusal) -> (Voice, String?)? {
        if VoiceAliases.openAI.contains(name.lowercased()) { return (openAIVoice, nil) }
        let speaking = catalog.voices.filter { (try? availability(of: $0)?.get()) != nil }
        return try VoiceAliases.closest(toMac: name, among: speaking).map { ($0.0, $0.1) }
    }
}
