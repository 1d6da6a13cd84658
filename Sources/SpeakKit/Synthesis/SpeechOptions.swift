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
    /// The text continues a reply whose audio is already under way (a Wyoming stream's later
    /// sentences), so its first audio need not come early: a Piper voice then makes its first
    /// sentence whole, which costs less than in windows. Not part of what the audio is.
    public var continuesReply = false

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
