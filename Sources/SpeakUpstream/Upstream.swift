/// Where a voice's replies come from when not from espeak-ng: another text-to-speech server that
/// returns MP3. The API key stays on this machine: read from `keyEnvironment` or `keyFile`, sent
/// only to `url`, never logged.
public struct Upstream: Codable, Sendable, Equatable {
    public enum API: String, Codable, Sendable {
        /// `POST {url}/v1/audio/speech` with `{"model","input","voice","response_format":"mp3","speed"}`.
        case openai
        /// `POST {url}/api/speak` with `{"text","voice"}`: another `speak serve`.
        case speak
    }

    public var api: API
    /// Base URL, e.g. `https://api.openai.com` or `http://10.0.0.2:8080`.
    public var url: String
    /// Model for the OpenAI API, e.g. `tts-1`.
    public var model: String?
    /// The upstream's voice name.
    public var voice: String
    /// Environment variable holding the API key.
    public var keyEnvironment: String?
    /// File holding the API key (first line).
    public var keyFile: String?
    /// Seconds before one attempt gives up.
    public var timeout: Double?
    /// The local voice that answers when the upstream fails.
    public var fallback: String?

    public init(
        api: API, url: String, model: String? = nil, voice: String, keyEnvironment: String? = nil,
        keyFile: String? = nil,
        timeout: Double? = nil, fallback: String? = nil
    ) {
        self.api = api
        self.url = url
        self.model = model
        self.voice = voice
        self.keyEnvironment = keyEnvironment
        self.keyFile = keyFile
        self.timeout = timeout
        self.fallback = fallback
    }
}
