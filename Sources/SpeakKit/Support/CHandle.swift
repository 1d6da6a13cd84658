/// A C library's handle that is used from more than one thread: a `whisper_context *`, a
/// libmicrohttpd daemon or connection.
///
/// `@unchecked` because the library, not Swift, says what is safe: whoever holds a handle calls
/// only functions its library allows from any thread, takes turns where the library needs them (a
/// lock, a pool lending it to one caller at a time), and frees it once. The one place for that
/// promise, so the types that hold handles are checked `Sendable`.
public struct CHandle: @unchecked Sendable, Equatable {
    public let pointer: OpaquePointer

    public init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
