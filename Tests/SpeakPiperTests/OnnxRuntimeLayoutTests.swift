import COnnxRuntime
import Foundation
import Testing

@testable import SpeakPiper

/// speak reaches ONNX Runtime's C API by table position (COnnxRuntime's OnnxRuntimeDeclarations.h).
/// With ONNX Runtime's own header at hand, each position must be where that header puts the entry.
@Suite(.enabled(if: OnnxRuntimeLayout.header != nil))
struct OnnxRuntimeLayoutTests {
    @Test func declaredPositionsMatchTheInstalledHeader() throws {
        let rows = try OnnxRuntimeLayout.probe(header: try #require(OnnxRuntimeLayout.header))
        #expect(rows.count == OnnxRuntimeLayout.names.count)
        for row in rows { #expect(row.theirs == row.ours, "\(row.name)") }
    }
}

/// The entries called through the declared positions do what their names say on the installed
/// ONNX Runtime (a position one off would call another function): a status made with CreateStatus
/// reads back through GetErrorCode and GetErrorMessage.
@Suite(.enabled(if: OnnxRuntime.candidates().contains { FileManager.default.fileExists(atPath: $0) }))
struct OnnxRuntimeEntryTests {
    @Test func aStatusReadsBack() throws {
        let api = try OnnxRuntime.shared().api
        let status = try #require(api.CreateStatus(2, "speak probe"))
        defer { api.ReleaseStatus(status) }
        #expect(api.GetErrorCode(status) == 2)
        #expect(api.GetErrorMessage(status).map { String(cString: $0) } == "speak probe")
        #expect(try OnnxRuntime.shared().version?.split(separator: ".").count == 3)
    }
}

enum OnnxRuntimeLayout {
    /// `SPEAK_ONNXRUNTIME_HEADER`, else where a package installs `onnxruntime_c_api.h`.
    static let header: String? = {
        let environment = ProcessInfo.processInfo.environment["SPEAK_ONNXRUNTIME_HEADER"].map { [$0] } ?? []
        return
            (environment + [
                "/usr/local/include/onnxruntime/onnxruntime_c_api.h", "/usr/include/onnxruntime/onnxruntime_c_api.h",
                "/usr/local/include/onnxruntime_c_api.h", "/usr/include/onnxruntime_c_api.h",
            ]).first { FileManager.default.fileExists(atPath: $0) }
    }()
    static let ownHeader = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/COnnxRuntime/include/OnnxRuntimeDeclarations.h").standardizedFileURL.path

    static let names = [
        "CreateStatus", "GetErrorCode", "GetErrorMessage", "CreateEnv", "CreateSession", "Run", "CreateSessionOptions",
        "SetSessionGraphOptimizationLevel", "SetIntraOpNumThreads", "SetInterOpNumThreads",
        "CreateTensorWithDataAsOrtValue", "GetTensorMutableData", "GetDimensionsCount", "GetDimensions",
        "GetTensorTypeAndShape", "CreateCpuMemoryInfo", "ReleaseEnv", "ReleaseStatus", "ReleaseMemoryInfo",
        "ReleaseSession", "ReleaseValue", "ReleaseTensorTypeAndShapeInfo", "ReleaseSessionOptions",
        "AddSessionConfigEntry", "CreateEnvWithGlobalThreadPools", "CreateThreadingOptions",
        "SetGlobalIntraOpNumThreads", "SetGlobalInterOpNumThreads", "SetGlobalSpinControl", "ReleaseThreadingOptions",
        "DisablePerSessionThreads", "DisableCpuMemArena", "CreateRunOptions", "AddRunConfigEntry", "ReleaseRunOptions",
    ]

    /// Compiles and runs a C program that prints, for each entry, its position in `header`'s OrtApi
    /// and speak's declared one.
    static func probe(header: String) throws -> [(name: String, theirs: Int, ours: Int)] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ort-layout-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var program = "#include <stddef.h>\n#include <stdio.h>\n#include \"\(header)\"\n#include \"\(ownHeader)\"\n"
        program += "int main(void) {\n"
        for name in names {
            program +=
                "    printf(\"\(name) %zu %d\\n\", offsetof(OrtApi, \(name)) / sizeof(void *), "
                + "(int)SpeakOrtIndex\(name));\n"
        }
        program += "    return 0;\n}\n"
        let source = directory.appendingPathComponent("probe.c")
        try program.write(to: source, atomically: true, encoding: .utf8)
        let binary = directory.appendingPathComponent("probe").path
        try run("/usr/bin/cc", ["-o", binary, source.path])
        return try run(binary, []).split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), Int(parts[1]) ?? -1, Int(parts[2]) ?? -2)
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Failed: Error { var status: Int32 }
        guard process.terminationStatus == 0 else { throw Failed(status: process.terminationStatus) }
        return String(decoding: data, as: UTF8.self)
    }
}
