/// An error a transcriber throws because of what the caller asked for, not because it failed:
/// words it cannot listen for, a language it does not know. Front ends report it as the caller's
/// mistake (HTTP 400 naming the field, exit 64) instead of a transcription failure.
public protocol TranscriptionRequestFault: Error, CustomStringConvertible {
    /// The request field at fault (`expect`, `language`) and what is wrong with it, or `nil` when
    /// this error is a failure after all.
    var requestFault: (parameter: String, message: String)? { get }
}
