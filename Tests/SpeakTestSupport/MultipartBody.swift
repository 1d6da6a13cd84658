import Foundation

/// A multipart/form-data body, as a browser or `curl -F` sends an upload.
public struct MultipartBody: Sendable {
    public struct File: Sendable {
        public var field: String
        public var filename: String
        public var contentType: String
        public var data: Data

        public init(field: String = "file", filename: String, contentType: String, data: Data) {
            (self.field, self.filename, self.contentType, self.data) = (field, filename, contentType, data)
        }
    }

    public let boundary = "speak-test-\(UUID().uuidString)"
    public var fields: [(String, String)]
    public var files: [File]

    public init(fields: [(String, String)] = [], files: [File] = []) {
        (self.fields, self.files) = (fields, files)
    }

    /// The Content-Type header naming the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public var data: Data {
        var data = Data()
        for (name, value) in fields {
            data += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            data += Data(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; "
                    + "filename=\"\(file.filename)\"\r\nContent-Type: \(file.contentType)\r\n\r\n").utf8)
            data += file.data + Data("\r\n".utf8)
        }
        return data + Data("--\(boundary)--\r\n".utf8)
    }
}

extension ServiceClient {
    /// `POST path` with `form` as its body, with the client's own authorization.
    public func upload(_ path: String, _ form: MultipartBody, query: [String: String] = [:]) -> ServiceAnswer {
        call("POST", path, query: query, body: form.data, headers: ["content-type": form.contentType])
    }
}
