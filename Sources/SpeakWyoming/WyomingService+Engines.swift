import SpeakKit

extension WyomingService.TranscriberInfo {
    /// What `transcriber` says of itself; `nil` for one that cannot transcribe (no `asr` in `info`).
    public init?(_ transcriber: any Transcriber) {
        guard let about = transcriber.about else { return nil }
        self.init(description: about.name, model: about.model, languages: about.languages)
    }
}

extension WyomingService.Speakers {
    /// The named speakers each voice's own engine lists, and the voice that speaks as one.
    public init(engine: SpeechEngine) {
        self.init(
            names: { voice in (try? engine.synthesizer(for: voice))?.speakers(of: voice) ?? [] },
            voice: { voice, speaker in (try? engine.synthesizer(for: voice))?.voice(voice, speakingAs: speaker) })
    }
}
