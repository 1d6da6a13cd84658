import SpeakKit

/// Where recordings go to be transcribed when not to pocketsphinx: an OpenAI-compatible speech-to-text
/// API (Groq, OpenAI, a local Whisper server) or another `speak serve`. The API key stays on this
/// machine: read from `keyEnvironment` or `keyFile`, sent only to `url`, never logged.
public struct TranscriptionUpstream: Codable, Sendable, Equatable {
    public enum API: String, Codable, Sendable {
        /// `POST {url}/v1/audio/transcriptions` (`…/translations` to translate), multipart: `file`,
        /// `model`, `language`, `prompt`, `temperature`, `response_format`.
        case openai
        /// `POST {url}/api/transcribe` (`/v1/audio/translations` to translate), multipart: `language`,
        /// `expect`, `prompt`, `temperature`, `file`; answers `{"text"}`: another `speak serve`.
        case speak
    }

    /// The reply format asked of an OpenAI-compatible API; each is read into a ``Transcript``.
    public enum ResponseFormat: String, Codable, Sendable, CaseIterable {
        /// `{"text"}`.
        case json
        /// The text alone.
        case text
        /// `{"text","duration","segments":[{"start","end","text"}]}`: the only one with segments.
        case verboseJSON = "verbose_json"
    }

    public var api: API
    /// Base URL, e.g. `https://api.groq.com/openai`, `https://api.openai.com` or `http://10.0.0.2:8080`.
    public var url: String
    /// Model for the OpenAI API; `whisper-large-v3-turbo` when nil.
    public var model: String?
    /// Environment variable holding the API key.
    public var keyEnvironment: String?
    /// File holding the API key (first line).
    public var keyFile: String?
    /// Seconds before one request gives up; when nil, 60 plus the upload's time at 1 Mbit/s.
    public var timeout: Double?
    /// `json` when nil.
    public var responseFormat: ResponseFormat?

    public static let defaultModel = "whisper-large-v3-turbo"

    public init(
        api: API, url: String, model: String? = nil, keyEnvironment: String? = nil, keyFile: String? = nil,
        timeout: Double? = nil, responseFormat: ResponseFormat? = nil
    ) {
        self.api = api
        self.url = url
        self.model = model
        self.keyEnvironment = keyEnvironment
        self.keyFile = keyFile
        self.timeout = timeout
        self.responseFormat = responseFormat
    }
}
