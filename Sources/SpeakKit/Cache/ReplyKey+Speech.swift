extension ReplyKey {
    /// The key of a spoken reply, the same whoever asks (the command line or the server), so they
    /// share one cache: the engine and the voice's full settings, the prosody, whether the text is
    /// SSML, the format and the text.
    public init(speaking text: String, options: SpeechOptions, format: String) {
        var engine = options.voice.engine
        if options.volume != 100 { engine += ";volume=\(options.volume)" }
        if options.ssml { engine += ";ssml" }
        self.init(
            engine: engine, voice: options.voice.identity, rate: options.effectiveRate, pitch: options.effectivePitch,
            format: format, text: text)
    }
}
