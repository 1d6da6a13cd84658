internal import CMicroHTTPD
import Foundation

/// One request's state across libmicrohttpd's calls: headers, body so far, a deferred answer.
final class Exchange: @unchecked Sendable {  // touched by one libmicrohttpd thread at a time
    /// Its body (or form) grows as libmicrohttpd hands over the upload.
    var request: HTTPRequest
    let policy: HTTPServer.BodyPolicy
    private var received = 0
    /// The body's size so far.
    var receivedBytes: Int { received }
    /// Why the body cannot be taken: past the limit, or unreadable.
    private(set) var failure: HTTPError?
    /// The reply queued for it, once there is one: its size when whole, its stream when streamed.
    var reply: (bytes: Int?, stream: ResponseStream?)?
    private var multipart: MultipartParser?
    private var bodyFile: Int32 = -1
    private var spooled: [URL] = []
    /// Guarded by ``Suspensions``'s lock: the answer computed while the connection was suspended.
    var ready: (response: HTTPResponse, stream: ResponseStream?)?
    var connection: OpaquePointer?
    /// The session a queued 101 hands its connection to, until the upgrade happens.
    var upgrade: WebSocket.Session?
    /// The connection is a WebSocket's now: no longer counted as a request in flight.
    var upgraded = false

    init(request: HTTPRequest, policy: HTTPServer.BodyPolicy) {
        self.request = request
        self.policy = policy
        if let spool = policy.multipartSpool,
            let boundary = MultipartParser.boundary(contentType: request.header("Content-Type"))
        {
            multipart = MultipartParser(boundary: boundary, spool: spool)
        }
    }

    /// Spooled uploads live as long as their request.
    deinit {
        if bodyFile >= 0 { close(bodyFile) }
        for file in spooled + (multipart?.spooled ?? []) { unlink(file.path) }
    }

    /// The next piece of the body. Past the limit or a parse error, the rest is dropped.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        received += bytes.count
        guard failure == nil else { return }
        guard received <= policy.maximumBytes else {
            failure = HTTPError(
                413, "request body is larger than \(policy.maximumBytes) bytes", code: "request_too_large")
            return
        }
        do {
            if let multipart {
                try multipart.feed(bytes)
            } else if let spool = policy.multipartSpool {
                try spoolBody(bytes, into: spool)
            } else {
                request.body.append(contentsOf: bytes)
            }
        } catch let error as HTTPError {
            failure = error
        } catch {
            failure = HTTPError(400, "cannot read the upload: \(error)")
        }
    }

    /// A body that is not multipart, on a route that spools: straight to one file.
    private func spoolBody(_ bytes: UnsafeRawBufferPointer, into spool: URL) throws {
        if bodyFile < 0 {
            let url = spool.appendingPathComponent("body-\(UUID().uuidString)")
            bodyFile = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard bodyFile >= 0 else {
                throw HTTPError(500, "cannot spool the upload: \(String(cString: strerror(errno)))")
            }
            spooled.append(url)
            request.bodyFile = url
        }
        var done = 0
        while done < bytes.count {
            let written = write(bodyFile, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw HTTPError(500, "cannot spool the upload: \(String(cString: strerror(errno)))")
            }
            done += written
        }
    }

    /// The whole body has arrived: completes the form, or gives the error to answer with.
    func finishBody() -> HTTPError? {
        if failure == nil, let multipart {
            do { request.form = try multipart.finish() } catch {
                failure = error as? HTTPError ?? HTTPError(400, "\(error)")
            }
        }
        if bodyFile >= 0 {
            close(bodyFile)
            bodyFile = -1
        }
        return failure
    }
}
