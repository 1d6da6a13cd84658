/// How a text is to be spoken: the voice and the prosody that may override it.
public struct SpeechOptions: Sendable, Equatable {
    public var voice: Voice
    /// Words per minute; `nil` keeps the voice's rate.
    public var rate: Int?
    /// 0...100; `nil` keeps the voice's pitch.
    public var pitch: Int?
    /// 0...200, where 100 is espeak-ng's normal volume.
    public var volume: Int
    /// Treat the text as SSML markup.
    public var ssml: Bool

    public static let rateRange = 80...450
    public static let pitchRange = 0...100
    public static let volumeRange = 0...200

    public init(voice: Voice, rate: Int? = nil, pitch: Int? = nil, volume: Int = 100, ssml: Bool = false) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
        self.ssml = ssml
    }

    public var effectiveRate: Int { rate ?? voice.rate }
    public var effectivePitch: Int { pitch ?? voice.pitch }
}
