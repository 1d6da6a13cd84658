/// A failure reported by libespeak-ng, with the C function that returned it.
public struct EspeakError: CLibraryCodes {
    public static let library = "espeak-ng"
    public let code: Int32
    public let function: String
    public let message: String

    public init(code: Int32, function: String, message: String) {
        self.code = code
        self.function = function
        self.message = message
    }

    /// An `espeak_ERROR` value: anything but `EE_OK` (0) fails.
    public init(code: Int32, function: String) {
        let message =
            switch code {
            case 1: "buffer full"
            case 2: "not found"
            default: "internal error"
            }
        self.init(code: code, function: function, message: message)
    }

    public static func isFailure(_ code: Int32) -> Bool { code != 0 }
}
