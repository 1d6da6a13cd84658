import SpeakKit

extension HTTPServer {
    /// A close-on-exec TCP listener (SpeakKit's socket layer), so worker processes never inherit it.
    static func listen(host: String, port: Int) throws(HTTPServerError) -> (Int32, Int) {
        do {
            let (descriptor, bound) = try Socket.listen(host: host, port: port, backlog: 1024)
            return (descriptor, bound)
        } catch {
            throw HTTPServerError(error.description)
        }
    }

    /// The local hand-off's Unix socket: this user's alone, since its requests need no token.
    static func listen(socketPath path: String) throws(HTTPServerError) -> Int32 {
        do {
            return try Socket.listen(unixPath: path, backlog: 128)
        } catch {
            throw HTTPServerError(error.description)
        }
    }
}
