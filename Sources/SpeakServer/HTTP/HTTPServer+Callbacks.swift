internal import CMicroHTTPD
import Foundation

// C callbacks: they capture nothing; the server and exchange arrive as user data.

func accessHandler(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ upload: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method, let uploadSize, let state else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if let existing = state.pointee {
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        return server.handle(connection, exchange, upload: upload, uploadSize: uploadSize)
    }
    let query = values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND, lowercased: false)
    var request = HTTPRequest(
        method: String(cString: method), path: originPath(String(cString: url)),
        query: query.0, headers: values(of: connection, kind: MHD_ValueKind.HEADER_KIND, lowercased: true).0)
    request.viaLocalSocket = server.socketPath != nil
    if !request.viaLocalSocket {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        speak_client_address(connection, &text, socklen_t(text.count))
        let length = text.firstIndex(of: 0) ?? text.count
        request.address =
            length == 0 ? nil : String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    request.queryIsUTF8 = query.allUTF8
    let exchange = Exchange(request: request, policy: server.bodyPolicy(request.method, request.path))
    state.pointee = Unmanaged.passRetained(exchange).toOpaque()
    server.started()
    if let refusal = server.refusesUpfront(exchange) { return server.send(refusal, on: connection, for: exchange) }
    return MHD_Result.YES
}

/// The path of an absolute-form target (`http://host/health` → `/health`), else the target itself.
func originPath(_ target: String) -> String {
    guard target.first != "/", let scheme = target.range(of: "://"),
        ["http", "https"].contains(target[..<scheme.lowerBound].lowercased())
    else { return target }
    let rest = target[scheme.upperBound...]
    guard let slash = rest.firstIndex(of: "/") else { return "/" }
    return String(rest[slash...])
}

/// The request is over (answered, or the connection closed): release its exchange.
func requestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let context, let state, let existing = state.pointee else { return }
    let exchange = Unmanaged<Exchange>.fromOpaque(existing)
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.completed(exchange.takeUnretainedValue(), on: connection, reason: reason)
    exchange.release()
    state.pointee = nil
}

func connectionChanged(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ change: MHD_ConnectionNotificationCode
) {
    // 1 is MHD_CONNECTION_NOTIFY_CLOSED.
    guard let context, change.rawValue == 1 else { return }
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connectionClosed()
}

func readStream(
    _ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let context, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    return Unmanaged<ResponseStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

func releaseStream(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let stream = Unmanaged<ResponseStream>.fromOpaque(context)
    stream.takeUnretainedValue().close()
    stream.release()
}

/// A connection's headers or query arguments. A header sent more than once is joined with ", ",
/// as RFC 9110 combines repeated fields, so conflicting framing headers can be seen.
/// The connection's values of `kind`, and whether all were UTF-8 (else they are repaired, U+FFFD
/// for each bad byte).
private func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> (
    [String: String], allUTF8: Bool
) {
    struct Collected {
        // Room for a usual request's headers: growing a dictionary rehashes it.
        var values = [String: String](minimumCapacity: 12)
        var lowercased: Bool
        var joins: Bool
        var allUTF8 = true
    }
    var collected = Collected(lowercased: lowercased, joins: kind == MHD_ValueKind.HEADER_KIND)
    // The _n variant gives the lengths: a value with a NUL (`?text=a%00b`) arrives whole, to be refused.
    withUnsafeMutablePointer(to: &collected) { context in
        _ = MHD_get_connection_values_n(
            connection, kind,
            { context, _, key, keySize, value, valueSize in
                guard let context, let key else { return MHD_Result.YES }
                let collected = context.assumingMemoryBound(to: Collected.self)
                let name =
                    collected.pointee.lowercased
                    ? asciiLowercased(
                        UnsafeBufferPointer(
                            start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), count: keySize))
                    : String(cString: key)
                let bytes = value.map { UnsafeRawBufferPointer(start: $0, count: valueSize) }
                let valid = bytes.flatMap { String(validating: $0, as: UTF8.self) }
                if bytes != nil, valid == nil { collected.pointee.allUTF8 = false }
                let text = valid ?? bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
                if let earlier = collected.pointee.values.updateValue(text, forKey: name), collected.pointee.joins {
                    collected.pointee.values[name] = earlier + ", " + text
                }
                return MHD_Result.YES
            }, context)
    }
    return (collected.values, collected.allUTF8)
}
