/// The transcriber a server was configured with cannot run (its model is missing or damaged):
/// transcription requests get a 503 with this reason, and the rest of the server works.
public struct TranscriptionUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "transcription is unavailable: \(reason)" }
}

/// Stands in for a transcriber that could not be made, failing every call with the reason.
public struct UnavailableTranscriber: Transcriber {
    public let reason: String
    public init(reason: String) { self.reason = reason }

    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        throw TranscriptionUnavailable(reason: reason)
    }
}
