/// A failure reported by libespeak-ng, with the C function that returned it.
public struct EspeakError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let function: String
    public let message: String

    public var description: String { "espeak-ng: \(function) failed: \(message) (code \(code))" }

    /// Turns an `espeak_ERROR` value into success or an `EspeakError`.
    static func check(_ code: Int32, _ function: String) throws(EspeakError) {
        guard code != 0 else { return }
        let message =
            switch code {
            case 1: "buffer full"
            case 2: "not found"
            default: "internal error"
            }
        throw EspeakError(code: code, function: function, message: message)
    }
}
