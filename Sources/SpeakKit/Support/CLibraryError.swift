/// The contract every C library's error type keeps: the C function that failed, the code it
/// returned, and the library's own words for it, in one line. Each library keeps its own type, so a
/// caller can tell them apart, and says which of its codes are failures.
public protocol CLibraryError: Error, CustomStringConvertible, Sendable {
    /// The library, as its messages begin: `espeak-ng`, `LAME`, `mpg123`…
    static var library: String { get }
    var code: Int32 { get }
    var function: String { get }
    var message: String { get }
}

extension CLibraryError {
    public var description: String { "\(Self.library): \(function) failed: \(message) (code \(code))" }
}

/// A library whose return codes say on their own whether a call failed, and why.
public protocol CLibraryCodes: CLibraryError {
    /// Whether `code` reports a failure in this library's convention.
    static func isFailure(_ code: Int32) -> Bool
    /// The error for a failing `code` returned by `function`, with the library's message for it.
    init(code: Int32, function: String)
}

extension CLibraryCodes {
    /// `code` when the call succeeded (a count, for calls that return one), else this library's error.
    @discardableResult
    public static func check(_ code: Int32, _ function: String) throws(Self) -> Int32 {
        guard isFailure(code) else { return code }
        throw Self(code: code, function: function)
    }
}
