/// One reply to synthesise: what to say, how, and in which format. It crosses from the server to a
/// worker process as one line of JSON, so it carries the whole voice, not just its name.
public struct SynthesisRequest: Codable, Sendable, Equatable {
    public var voice: Voice
    public var text: String
    public var rate: Int?
    public var pitch: Int?
    public var volume: Int
    public var ssml: Bool
    public var format: ReplyFormat
    public var mp3: MP3Settings
    /// ``SpeechOptions/continuesReply``; absent (`nil`) when false, so a request line stays as it was.
    public var continuesReply: Bool?

    public init(text: String, options: SpeechOptions, format: ReplyFormat = .mp3, mp3: MP3Settings = .init()) {
        voice = options.voice
        self.text = text
        rate = options.rate
        pitch = options.pitch
        volume = options.volume
        ssml = options.ssml
        self.format = format
        self.mp3 = mp3
        continuesReply = options.continuesReply ? true : nil
    }

    public var options: SpeechOptions {
        var options = SpeechOptions(voice: voice, rate: rate, pitch: pitch, volume: volume, ssml: ssml)
        options.continuesReply = continuesReply ?? false
        return options
    }
}
