import Foundation

/// A file written under a temporary name beside its destination and renamed into place by
/// `commit()`; dropped uncommitted, it is removed.
package final class OutputFile {
    package let handle: FileHandle
    private let destination: String
    private let temporary: String
    private var committed = false

    package init(path: String) throws {
        destination = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw InputError(code: .cannotCreate, message: "cannot write \(path): it is a directory")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.speak-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw InputError(code: .cannotCreate, message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, 0o644)
        temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    package func commit() throws {
        try handle.close()
        guard rename(temporary, destination) == 0 else {
            throw InputError(code: .cannotCreate, message: "cannot write \(destination): \(String(cString: strerror(errno)))")
        }
        committed = true
    }

    deinit {
        if !committed { unlink(temporary) }
    }
}
