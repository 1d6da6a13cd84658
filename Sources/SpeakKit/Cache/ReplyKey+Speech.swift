extension ReplyKey {
    /// The key of a spoken reply, the same whoever asks (the command line or the server), so they
    /// share one cache: the engine and the voice's full settings, the prosody, whether the text is
    /// SSML, the format (with an MP3's sample rate and bit rate) and the text.
    public init(speaking text: String, options: SpeechOptions, format: String, mp3: MP3Settings = MP3Settings()) {
        var engine = options.voice.engine
        if options.volume != 100 { engine += ";volume=\(options.volume)" }
        if options.ssml { engine += ";ssml" }
        var format = format
        // Named only when not the default, so the entries made at the default keep their keys.
        if format == ReplyFormat.mp3.rawValue, mp3 != MP3Settings() {
            format += ";\(mp3.sampleRate)Hz;\(mp3.bitrate)kbps"
        }
        self.init(
            engine: engine, voice: options.voice.identity, rate: options.effectiveRate, pitch: options.effectivePitch,
            format: format, text: text)
    }
}
