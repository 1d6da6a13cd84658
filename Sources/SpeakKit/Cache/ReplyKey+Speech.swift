extension ReplyKey {
    /// The key of a spoken reply, the same whoever asks (the command line or the server), so they
    /// share one cache: the voice's full settings, the prosody, the format and the text.
    public init(speaking text: String, voice: Voice, rate: Int?, pitch: Int?, volume: Int = 100, format: String) {
        var engine = voice.upstream.map { "upstream:\($0.api.rawValue):\($0.url):\($0.voice)" } ?? "espeak-ng"
        if volume != 100 { engine += ";volume=\(volume)" }
        self.init(engine: engine, voice: voice.identity, rate: rate ?? voice.rate, pitch: pitch ?? voice.pitch, format: format, text: text)
    }
}

extension Voice {
    /// Everything about the voice that changes its sound, in a fixed order. Built by hand rather
    /// than by JSONEncoder: the server computes it for every request, cache hits included.
    var identity: String {
        let letters = (transliteration ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        let upstreamPart = upstream.map { "\($0.api.rawValue)|\($0.url)|\($0.model ?? "")|\($0.voice)" } ?? ""
        return [name, language, espeakVoice, variant ?? "", String(rate), String(pitch), letters, upstreamPart].joined(separator: "\u{1F}")
    }
}
