internal import CMicroHTTPD
import Foundation

// The request's life, called from libmicrohttpd's threads.
extension HTTPServer {
    func handle(
        _ connection: OpaquePointer, _ exchange: Exchange, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if uploadSize.pointee > 0 {
            exchange.receive(UnsafeRawBufferPointer(start: upload, count: upload == nil ? 0 : uploadSize.pointee))
            uploadSize.pointee = 0
            // Past the limit (or unreadable): answered now and closed, not read to its end.
            if let failure = exchange.failure { return abandonUpload(answering: failure.response, on: connection) }
            return MHD_Result.YES
        }
        if let ready = suspensions.takeReady(exchange) {
            return send(ready.response, on: connection, for: exchange, stream: ready.stream)
        }
        if let failure = exchange.finishBody() { return send(failure.response, on: connection, for: exchange) }
        let response = handler(exchange.request)
        switch response.body {
        case .data: return send(response, on: connection, for: exchange)
        case .upgrade(let session): return upgrade(response, to: session, on: connection, for: exchange)
        case .deferred(let compute):
            guard suspensions.suspend(exchange, connection) else {
                return send(Self.ending, on: connection, for: exchange)
            }
            responders.run { [suspensions] in
                var answer = compute()
                // Nothing of it has been sent: one more try (a worker that died is replaced meanwhile).
                if answer.worthRetrying { answer = compute() }
                suspensions.finish(exchange, with: answer)
                if exchange.receivedBytes >= Self.trimAfterBytes { _ = malloc_trim(0) }
            }
            return MHD_Result.YES
        case .stream(let produce):
            guard suspensions.suspend(exchange, connection) else {
                return send(Self.ending, on: connection, for: exchange)
            }
            let stream = ResponseStream(connection: connection, suspensions: suspensions)
            responders.run { [suspensions] in
                Self.produce(produce, into: stream, answering: exchange, with: response, suspensions)
            }
            return MHD_Result.YES
        }
    }

    /// Runs a stream's producer. Its first bytes decide the answer: until then nothing is sent,
    /// so a reply that fails before it starts is an error status, never a 200 with no body; one
    /// that fails then with a ``TransientError`` is produced once more.
    private static func produce(
        _ produce: @Sendable (_ write: (Data) throws -> Void) throws -> Void, into stream: ResponseStream,
        answering exchange: Exchange, with response: HTTPResponse, _ suspensions: Suspensions
    ) {
        var started = false
        for attempt in 1...2 {
            do {
                try produce { data in
                    guard !data.isEmpty else { return }
                    if started { return try stream.write(data) }
                    stream.prime(data)
                    guard suspensions.finish(exchange, with: response, stream: stream) else {
                        throw HTTPServerError("the server is shutting down")
                    }
                    started = true
                }
                if !started { suspensions.finish(exchange, with: response, stream: stream) }
                return stream.finish(failed: false)
            } catch {
                if started { return stream.finish(failed: true) }
                if attempt == 1, (error as? any TransientError)?.isTransient == true { continue }
                let failure =
                    (error as? HTTPError)
                    ?? HTTPError(503, "the reply could not be made: \(error)", code: "engine_unavailable")
                suspensions.finish(exchange, with: failure.response)
                return
            }
        }
    }

    /// What a request gets once shutdown has ended the rest.
    static let ending = HTTPError(503, "the server is shutting down", code: "shutting_down").response

    /// Called before any of the body is read: framing RFC 9112 forbids, what `screen` refuses, or a
    /// declared length over the limit, is answered now.
    func refusesUpfront(_ exchange: Exchange) -> HTTPResponse? {
        let lengths = exchange.request.header("Content-Length").map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let error = refusesFraming(exchange.request, lengths: lengths) { return error.response }
        // Repaired, `?text=%ff` would be spoken as silence, with a 200.
        if !exchange.request.queryIsUTF8 {
            return HTTPError(400, "the query is not UTF-8: percent-encode the text's UTF-8 bytes").response
        }
        if let answer = screen(exchange.request) { return answer }
        // Repeated, the lengths agree (framing checked that): the first is the length.
        if let length = lengths?.first.flatMap(Int.init), length > exchange.policy.maximumBytes {
            let limit = exchange.policy.maximumBytes
            return HTTPError(413, "request body is larger than \(limit) bytes", code: "request_too_large").response
        }
        return nil
    }

    /// Framing RFC 9112 forbids; `lengths` are the Content-Length header's values.
    private func refusesFraming(_ request: HTTPRequest, lengths: [String]?) -> HTTPError? {
        if let lengths, Set(lengths).count > 1 {
            return HTTPError(400, "conflicting Content-Length headers", code: "invalid_framing")
        }
        if let codings = request.header("Transfer-Encoding") {
            let list = codings.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if lengths != nil {
                return HTTPError(
                    400, "a request may not carry both Transfer-Encoding and Content-Length", code: "invalid_framing")
            }
            guard list.last == "chunked" else {
                return HTTPError(400, "Transfer-Encoding must end with chunked", code: "invalid_framing")
            }
            if list.count > 1 {
                let others = list.dropLast().joined(separator: ", ")
                return HTTPError(
                    501, "transfer coding '\(others)' is not supported; send chunked only", code: "not_implemented")
            }
        }
        return nil
    }
}
