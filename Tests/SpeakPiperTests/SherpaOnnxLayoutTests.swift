import Foundation
import Testing

/// speak declares the part of sherpa-onnx's C API it uses in its own header; the same probe, compiled
/// once with that header and once with the installed wheel's, must print the same layout.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: SherpaOnnxLayout.wheelHeader)))
struct SherpaOnnxLayoutTests {
    @Test func declaredStructsAndFunctionsMatchTheWheelsHeader() throws {
        let ours = try SherpaOnnxLayout.probe(header: SherpaOnnxLayout.ownHeader)
        let theirs = try SherpaOnnxLayout.probe(header: SherpaOnnxLayout.wheelHeader)
        #expect(ours.count == SherpaOnnxLayout.fieldCount)
        #expect(ours == theirs)
    }

    /// The probe can tell a layout apart: one field moved by a word is a difference.
    @Test func aShiftedFieldIsCaught() throws {
        let ours = try SherpaOnnxLayout.probe(header: SherpaOnnxLayout.ownHeader)
        let shifted = try SherpaOnnxLayout.probe(
            header: SherpaOnnxLayout.ownHeader, defines: ["uint64_t reference[5]": "uint64_t reference[6]"])
        #expect(ours != shifted)
    }
}

enum SherpaOnnxLayout {
    static let wheelHeader = "/usr/local/lib/speak/sherpa-onnx/sherpa_onnx/include/sherpa-onnx/c-api/c-api.h"
    static let ownHeader = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/CSherpaOnnx/include/SherpaOnnxDeclarations.h").standardizedFileURL.path

    /// Every field speak's header names, by struct.
    static let fields: [(type: String, names: [String])] = [
        (
            "SherpaOnnxOfflineTtsVitsModelConfig",
            ["model", "lexicon", "tokens", "data_dir", "noise_scale", "noise_scale_w", "length_scale", "dict_dir"]
        ),
        ("SherpaOnnxOfflineTtsModelConfig", ["vits", "num_threads", "debug", "provider"]),
        ("SherpaOnnxOfflineTtsConfig", ["model", "rule_fsts", "max_num_sentences", "rule_fars", "silence_scale"]),
        (
            "SherpaOnnxGenerationConfig",
            [
                "silence_scale", "speed", "sid", "phoneme_codepoints", "phoneme_codepoints_lens",
                "phoneme_codepoints_num_sentences",
            ]
        ),
        ("SherpaOnnxGeneratedAudio", ["samples", "n", "sample_rate"]),
    ]
    static var fieldCount: Int { fields.reduce(0) { $0 + 1 + $1.names.count } }

    /// The functions' types, as speak calls them; the probe does not compile unless each header agrees.
    static let functions = [
        ("SherpaOnnxGetVersionStr", "const char *(*)(void)"),
        ("SherpaOnnxCreateOfflineTts", "const SherpaOnnxOfflineTts *(*)(const SherpaOnnxOfflineTtsConfig *)"),
        ("SherpaOnnxDestroyOfflineTts", "void (*)(const SherpaOnnxOfflineTts *)"),
        ("SherpaOnnxOfflineTtsSampleRate", "int32_t (*)(const SherpaOnnxOfflineTts *)"),
        ("SherpaOnnxOfflineTtsNumSpeakers", "int32_t (*)(const SherpaOnnxOfflineTts *)"),
        (
            "SherpaOnnxOfflineTtsGenerateWithConfig",
            """
            const SherpaOnnxGeneratedAudio *(*)(const SherpaOnnxOfflineTts *, const char *, \
            const SherpaOnnxGenerationConfig *, int32_t (*)(const float *, int32_t, float, void *), void *)
            """
        ),
        ("SherpaOnnxDestroyOfflineTtsGeneratedAudio", "void (*)(const SherpaOnnxGeneratedAudio *)"),
    ]

    /// Compiles and runs a C program that prints `struct.field size offset` for every field, against
    /// `header` (with each `replacements` key replaced by its value in a copy of the header).
    static func probe(header: String, defines replacements: [String: String] = [:]) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sherpa-layout-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var headerText = try String(contentsOfFile: header, encoding: .utf8)
        for (old, new) in replacements { headerText = headerText.replacingOccurrences(of: old, with: new) }
        try headerText.write(to: directory.appendingPathComponent("probed.h"), atomically: true, encoding: .utf8)
        var program = "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include \"probed.h\"\n"
        for (name, type) in functions {
            program += "_Static_assert(__builtin_types_compatible_p(__typeof__(&\(name)), \(type)), \"\(name)\");\n"
        }
        program += "int main(void) {\n"
        for (type, names) in fields {
            program += "    printf(\"\(type) %zu\\n\", sizeof(\(type)));\n"
            for name in names {
                let size = "sizeof(((\(type) *)0)->\(name))"
                program += "    printf(\"\(type).\(name) %zu %zu\\n\", \(size), offsetof(\(type), \(name)));\n"
            }
        }
        program += "    return 0;\n}\n"
        let source = directory.appendingPathComponent("probe.c")
        try program.write(to: source, atomically: true, encoding: .utf8)
        let binary = directory.appendingPathComponent("probe").path
        _ = try run("/usr/bin/cc", ["-std=gnu11", "-Werror", source.path, "-o", binary])
        return try run(binary, []).split(separator: "\n").map(String.init)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw ProbeFailed(description: "\(executable): \(text)") }
        return text
    }

    struct ProbeFailed: Error, CustomStringConvertible { var description: String }
}
