// Written out because Swift synthesises Codable only in the file that declares the type.
extension MP3Settings: Codable {
    private enum CodingKeys: String, CodingKey { case sampleRate, bitrate }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            sampleRate: try container.decode(Int.self, forKey: .sampleRate),
            bitrate: try container.decode(Int.self, forKey: .bitrate))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(bitrate, forKey: .bitrate)
    }
}
