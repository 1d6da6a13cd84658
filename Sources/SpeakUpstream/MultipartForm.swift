import Foundation
import SpeakKit

/// A `multipart/form-data` body (RFC 7578), built in memory.
struct MultipartForm {
    let boundary = "speak-\(UUID().uuidString)"
    private(set) var body = Data()

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
    }

    mutating func file(_ name: String, filename: String, contentType: String, data: Data) {
        append("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n")
        append("Content-Type: \(contentType)\r\n\r\n")
        body.append(data)
        append("\r\n")
    }

    /// The body with its closing boundary.
    func finished() -> Data { body + Data("--\(boundary)--\r\n".utf8) }

    private mutating func append(_ text: String) { body.append(Data(text.utf8)) }
}
