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

    /// A graph input or output as the file declares it: its name, element type (ONNX's
    /// `TensorProto.DataType`: 1 float, 7 int64) and dimensions, `nil` for a symbolic one (a batch).
    struct Value: Equatable, Sendable {
        var name: String
        var elementType: Int
        var dimensions: [Int?]
    }

    /// The graph's inputs (less those an initializer gives a value) and outputs, in the file's order
    /// (`GraphProto` field 11 and 12, each a `ValueInfoProto` whose `TypeProto.Tensor` has
    /// `elem_type` = 1 and `shape` = 2, a `TensorShapeProto` of `dim` = 1 with `dim_value` = 1).
    static func signature(of url: URL) throws(PiperError) -> (inputs: [Value], outputs: [Value]) {
        let data: Data
        do { data = try Data(contentsOf: url, options: .alwaysMapped) } catch {
            throw .corruptModel(url.path, "cannot be read")
        }
        let read = data.withUnsafeBytes { bytes -> (inputs: [Value], outputs: [Value])? in
            guard let graph = messages(bytes, field: graphField).first else { return nil }
            let initialized = Set(
                messages(graph, field: 5).compactMap { strings(messages($0, field: 8)).first })
            func values(_ field: Int) -> [Value]? {
                let values = messages(graph, field: field).map(value)
                return values.contains(nil) ? nil : values.compactMap { $0 }
            }
            guard let inputs = values(11), let outputs = values(12) else { return nil }
            return (inputs.filter { !initialized.contains($0.name) }, outputs)
        }
        guard let read else { throw .corruptModel(url.path, "not an ONNX model, or truncated") }
        return read
    }

    private static func value(_ info: UnsafeRawBufferPointer) -> Value? {
        guard let name = strings(messages(info, field: 1)).first else { return nil }
        let tensor = messages(info, field: 2).first.flatMap { messages($0, field: 1).first }
        guard let tensor, let type = integers(tensor, field: 1).first else { return nil }
        let dimensions = messages(tensor, field: 2).first.map { shape in
            messages(shape, field: 1).map { integers($0, field: 1).first.map { Int(truncatingIfNeeded: $0) } }
        }
        return Value(name: name, elementType: Int(type), dimensions: dimensions ?? [])
    }

    /// The length-delimited fields numbered `field` of a message; none when it does not parse.
    private static func messages(_ bytes: UnsafeRawBufferPointer, field: Int) -> [UnsafeRawBufferPointer] {
        var found: [UnsafeRawBufferPointer] = []
        let whole = fields(bytes) { number, payload, _ in if number == field, let payload { found.append(payload) } }
        return whole ? found : []
    }

    /// The varint fields numbered `field` of a message.
    private static func integers(_ bytes: UnsafeRawBufferPointer, field: Int) -> [UInt64] {
        var found: [UInt64] = []
        let whole = fields(bytes) { number, _, integer in if number == field, let integer { found.append(integer) } }
        return whole ? found : []
    }

    private static func strings(_ payloads: [UnsafeRawBufferPointer]) -> [String] {
        payloads.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with each field's number and its payload (length-delimited) or value (varint);
    /// false when the message does not parse.
    private static func fields(
        _ bytes: UnsafeRawBufferPointer, _ body: (Int, UnsafeRawBufferPointer?, UInt64?) -> Void
    ) -> Bool {
        var reader = Reader(bytes: bytes)
        while !reader.atEnd {
            guard let tag = reader.varint(), tag >> 3 > 0 else { return false }
            switch tag & 7 {
            case 0:
                guard let integer = reader.varint() else { return false }
                body(Int(tag >> 3), nil, integer)
            case 1: guard reader.skip(8) else { return false }
            case 5: guard reader.skip(4) else { return false }
            case 2:
                guard let length = reader.varint(), let payload = reader.take(Int(exactly: length) ?? -1) else {
                    return false
                }
                body(Int(tag >> 3), payload, nil)
            default: return false
            }
        }
        return true
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
