import Foundation

extension ReplyKey {
    /// The key of a spoken reply, the same whoever asks (the command line or the server), so they
    /// share one cache: the voice's full settings, the prosody, the format and the text.
    public init(speaking text: String, voice: Voice, rate: Int?, pitch: Int?, volume: Int = 100, format: String) {
        var engine = voice.upstream.map { "upstream:\($0.api.rawValue):\($0.url):\($0.voice)" } ?? "espeak-ng"
        if volume != 100 { engine += ";volume=\(volume)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let identity = (try? encoder.encode(voice)).map { String(decoding: $0, as: UTF8.self) } ?? voice.name
        self.init(engine: engine, voice: identity, rate: rate ?? voice.rate, pitch: pitch ?? voice.pitch, format: format, text: text)
    }
}
