import FoundationEssentials
import Glibc

/// Just enough of the ONNX file format (a protobuf `ModelProto`) to check a model before ONNX
/// Runtime sees it, with no ONNX library: the top-level fields are walked, the graph skipped over
/// by its length (the file is mapped, so its weights are not read), and `metadata_props` (field
/// 14, repeated `StringStringEntryProto` with `key` = 1 and `value` = 2) read. A truncated file or
/// one that is not ONNX is then one clear line, where ONNX Runtime's own message is several.
enum ONNXModelFile {
    static let metadataField = 14
    static let graphField = 7

    /// The model's metadata, after checking that every top-level field is whole and a graph is
    /// there; throws ``PiperError/corruptModel(_:_:)`` for a truncated file or one that is not ONNX.
    static func metadata(of url: URL) throws(PiperError) -> [String: String] {
        let data: Data
        do { data = try Data(contentsOf: url, options: .alwaysMapped) } catch {
            throw .corruptModel(url.path, "cannot be read")
        }
        let walked = data.withUnsafeBytes { bytes in walk(bytes) }
        guard let (metadata, hasGraph) = walked else {
            throw .corruptModel(url.path, "not an ONNX model, or truncated")
        }
        guard hasGraph else { throw .corruptModel(url.path, "an ONNX file without a graph") }
        return metadata
    }

    private static func walk(_ bytes: UnsafeRawBufferPointer) -> ([String: String], Bool)? {
        var reader = Reader(bytes: bytes)
        var metadata: [String: String] = [:]
        var hasGraph = false
        while !reader.atEnd {
            guard let tag = reader.varint(), tag >> 3 > 0 else { return nil }
            let field = Int(tag >> 3)
            switch tag & 7 {
            case 0: guard reader.varint() != nil else { return nil }
            case 1: guard reader.skip(8) else { return nil }
            case 5: guard reader.skip(4) else { return nil }
            case 2:
                guard let length = reader.varint(), let payload = reader.take(Int(exactly: length) ?? -1) else {
                    return nil
                }
                if field == graphField { hasGraph = true }
                if field == metadataField {
                    guard let (key, value) = entry(payload) else { return nil }
                    metadata[key] = value
                }
            default: return nil
            }
        }
        return (metadata, hasGraph)
    }

    private static func entry(_ bytes: UnsafeRawBufferPointer) -> (String, String)? {
        var reader = Reader(bytes: bytes)
        var key = ""
        var value = ""
        while !reader.atEnd {
            guard let tag = reader.varint(), tag & 7 == 2, let length = reader.varint(),
                let text = reader.take(Int(exactly: length) ?? -1)
            else { return nil }
            let string = String(decoding: text, as: UTF8.self)
            if tag >> 3 == 1 { key = string } else if tag >> 3 == 2 { value = string }
        }
        return (key, value)
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var atEnd: Bool { offset >= bytes.count }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
    }
}
