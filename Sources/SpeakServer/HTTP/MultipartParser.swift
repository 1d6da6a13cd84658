import Foundation

/// A multipart/form-data upload, parsed: small fields in memory, file parts on disk.
public struct MultipartForm: Sendable {
    /// Each field's value; the last one of a name sent more than once.
    public var fields: [String: String] = [:]
    /// Every value of each field, in order: arrays arrive as repeated fields (`include[]=a`, `include[]=b`).
    public var allFields: [String: [String]] = [:]
    public var files: [String: UploadedFile] = [:]
}

public struct UploadedFile: Sendable {
    public var filename: String?
    public var contentType: String?
    /// Where the part was spooled as it arrived; removed when the request ends.
    public var url: URL
    public var size: Int
}

/// Parses multipart/form-data as it streams in, so an upload never sits in memory whole: field
/// values are kept (up to a small cap), file parts go straight to files in `spool`.
final class MultipartParser {
    private enum State { case preamble, headers, body, done }

    private let delimiter: [UInt8]
    /// Spaces and tabs allowed between a boundary and its line's end.
    private static let maximumPadding = 64
    private let spool: URL
    private let maximumFieldBytes: Int
    private var state = State.preamble
    private var pending: [UInt8] = []
    private var form = MultipartForm()
    private var part:
        (
            name: String, filename: String?, contentType: String?, file: FileHandle?, url: URL?, value: [UInt8],
            size: Int
        )?
    private(set) var spooled: [URL] = []

    /// The boundary from a `multipart/form-data; boundary=…` Content-Type, or nil.
    static func boundary(contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    init(boundary: String, spool: URL, maximumFieldBytes: Int = 64 << 10) {
        // The first boundary may open the body; later ones follow a CRLF. Start as if after one.
        delimiter = Array("\r\n--\(boundary)".utf8)
        pending = Array("\r\n".utf8)
        self.spool = spool
        self.maximumFieldBytes = maximumFieldBytes
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
        while try step() {}
    }

    /// The form, once the closing boundary has been seen.
    func finish() throws -> MultipartForm {
        guard state == .done else {
            throw HTTPError(400, "the multipart body ends before its closing boundary", code: "invalid_multipart")
        }
        return form
    }

    /// Consumes what it can of `pending`; false when it needs more bytes.
    private func step() throws -> Bool {
        switch state {
        case .done:
            pending.removeAll()
            return false
        case .headers:
            guard let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) else {
                if pending.count > 16 << 10 {
                    throw HTTPError(400, "multipart part headers are too long", code: "invalid_multipart")
                }
                return false
            }
            try beginPart(headers: String(decoding: pending[..<end.lowerBound], as: UTF8.self))
            pending.removeSubrange(..<end.upperBound)
            state = .body
            return true
        case .preamble, .body:
            guard let found = pending.firstRange(of: delimiter) else {
                // Keep what could be the start of a delimiter split across reads.
                let safe = pending.count - (delimiter.count - 1)
                if safe > 0 {
                    if state == .body { try emit(pending[..<safe]) }
                    pending.removeFirst(safe)
                }
                return false
            }
            if state == .body { try emit(pending[..<found.lowerBound]) }
            pending.removeSubrange(..<found.lowerBound)
            // What follows a delimiter: "--" the end, else CRLF another part, after any transport
            // padding (spaces and tabs, RFC 2046 5.1.1).
            guard pending.count >= delimiter.count + 2 else { return false }
            if pending[delimiter.count..<delimiter.count + 2].elementsEqual("--".utf8) {
                pending.removeFirst(delimiter.count + 2)
                if state == .body { try endPart() }
                state = .done
                return true
            }
            let padding = pending[delimiter.count...].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let lineEnd = delimiter.count + padding.count
            guard padding.count <= Self.maximumPadding else {
                throw HTTPError(400, "malformed multipart boundary", code: "invalid_multipart")
            }
            guard pending.count >= lineEnd + 2 else { return false }
            guard pending[lineEnd..<lineEnd + 2].elementsEqual("\r\n".utf8) else {
                throw HTTPError(400, "malformed multipart boundary", code: "invalid_multipart")
            }
            pending.removeFirst(lineEnd + 2)
            if state == .body { try endPart() }
            state = .headers
            return true
        }
    }

    private func beginPart(headers: String) throws {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.components(separatedBy: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-disposition:") {
                name = Self.parameter("name", in: line)
                filename = Self.parameter("filename", in: line)
            } else if lower.hasPrefix("content-type:") {
                contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        guard let name else { throw HTTPError(400, "a multipart part has no name", code: "invalid_multipart") }
        var file: FileHandle?
        var url: URL?
        if filename != nil {
            let spooled = spool.appendingPathComponent("upload-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: spooled.path, contents: nil),
                let handle = FileHandle(forWritingAtPath: spooled.path)
            else {
                throw HTTPError(500, "cannot spool the upload")
            }
            self.spooled.append(spooled)
            (file, url) = (handle, spooled)
        }
        part = (name, filename, contentType, file, url, [], 0)
    }

    private func emit(_ bytes: ArraySlice<UInt8>) throws {
        guard !bytes.isEmpty, part != nil else { return }
        part!.size += bytes.count
        if let file = part!.file {
            try file.write(contentsOf: bytes)
        } else {
            guard part!.value.count + bytes.count <= maximumFieldBytes else {
                // Most often a file sent as a field (curl's -F "file=<note.wav").
                let name = part!.name
                throw HTTPError(
                    400,
                    "form field '\(name)' is over \(maximumFieldBytes) bytes: send a file as a file part, "
                        + "with a filename (curl -F '\(name)=@note.wav')", param: name)
            }
            part!.value += bytes
        }
    }

    private func endPart() throws {
        guard let part else { return }
        if let file = part.file, let url = part.url {
            try file.close()
            form.files[part.name] = UploadedFile(
                filename: part.filename, contentType: part.contentType, url: url, size: part.size)
        } else {
            form.fields[part.name] = String(decoding: part.value, as: UTF8.self)
            form.allFields[part.name, default: []].append(String(decoding: part.value, as: UTF8.self))
        }
        self.part = nil
    }

    /// `name="value"` from a Content-Disposition line.
    private static func parameter(_ key: String, in line: String) -> String? {
        for piece in line.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == key {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}
