/// Every codec a program carries, composed once beside its synthesizers and handed to the engines:
/// front ends name formats (``ReplyFormat``), never codec types. SpeakKit's own are MP3 (LAME and
/// libmpg123), WAV and PCM; a program that links FFmpeg adds its Opus, AAC and FLAC encoders and
/// its decoder of every container (SpeakMedia's `Codecs.ffmpeg`).
public struct Codecs: Sendable {
    /// Reply encoders for the formats SpeakKit does not encode itself.
    public var replyEncoders: [ReplyFormat: ReplyEncoder.Maker]
    /// Turns uploaded and recorded files into PCM for transcription.
    public var decoder: any AudioFileDecoder

    public init(replyEncoders: [ReplyFormat: ReplyEncoder.Maker] = [:], decoder: any AudioFileDecoder) {
        precondition(
            replyEncoders.keys.allSatisfy { !ReplyEncoder.builtIn.contains($0) }, "SpeakKit encodes those itself")
        self.replyEncoders = replyEncoders
        self.decoder = decoder
    }

    /// SpeakKit's own: the light `speak`'s.
    public static let builtIn = Codecs(decoder: WAVAndMP3Decoder())

    /// Whether a reply can be encoded as `format` here.
    public func canEncode(_ format: ReplyFormat) -> Bool {
        ReplyEncoder.builtIn.contains(format) || replyEncoders[format] != nil
    }

    /// The reply formats this program encodes, in ``ReplyFormat``'s order.
    public var replyFormats: [ReplyFormat] { ReplyFormat.allCases.filter(canEncode) }
}
