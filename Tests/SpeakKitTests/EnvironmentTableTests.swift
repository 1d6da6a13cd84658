import Foundation
import Testing

@testable import SpeakKit

/// The `SPEAK_*` variables: one table in code, the same in Docs/configuration.md, and both exactly the
/// names the sources use.
@Suite("SPEAK_* environment: one table, documented, parsed once")
struct EnvironmentTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let tableFile = "Sources/SpeakKit/Support/EnvironmentSettings.swift"

    static func names(in text: String) -> Set<String> {
        Set(text.matches(of: /SPEAK_[A-Z0-9_]*[A-Z0-9]/).map { String($0.output) })
    }

    /// Each `SPEAK_*` name in the Swift files under Sources/, with the files naming it (the table's
    /// own file left out: a name only the table has is used nowhere).
    static func namesInSources() throws -> [String: [String]] {
        let sources = root.appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
            .filter { $0.hasSuffix(".swift") }.map { "Sources/" + $0 }.filter { $0 != tableFile }
        var found: [String: [String]] = [:]
        for file in files.sorted() {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for name in names(in: text) { found[name, default: []].append(file) }
        }
        return found
    }

    /// The first column of Docs/configuration.md's table.
    static func namesInDocs() throws -> [String] {
        let page = try String(contentsOf: root.appendingPathComponent("Docs/configuration.md"), encoding: .utf8)
        return page.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\| `(SPEAK_[A-Z0-9_]+)` \|/).map { String($0.output.1) }
        }
    }

    @Test("every SPEAK_ name in Sources/ is in the Swift table and the Docs table, and each entry is used")
    func tablesMatchSources() throws {
        let used = try Self.namesInSources()
        #expect(used.count >= 19, "\(used.keys.sorted())")
        let table = EnvironmentSettings.variables.map(\.name)
        let documented = try Self.namesInDocs()
        #expect(Set(table).count == table.count, "a name twice in EnvironmentSettings.variables")
        #expect(Set(documented).count == documented.count, "a name twice in Docs/configuration.md")
        for (name, files) in used.sorted(by: { $0.key < $1.key }) {
            #expect(table.contains(name), "\(name), used in \(files), is not in EnvironmentSettings.variables")
            #expect(documented.contains(name), "\(name), used in \(files), is not in Docs/configuration.md")
        }
        for name in table {
            #expect(used[name] != nil, "\(name) is in EnvironmentSettings.variables but used nowhere in Sources/")
        }
        for name in documented {
            #expect(used[name] != nil, "\(name) is in Docs/configuration.md but used nowhere in Sources/")
        }
    }

    @Test("every table entry says what it does, its default and what it takes")
    func entriesComplete() {
        for variable in EnvironmentSettings.variables {
            #expect(variable.name.hasPrefix("SPEAK_"))
            #expect(
                !variable.purpose.isEmpty && !variable.standard.isEmpty && !variable.accepted.isEmpty, "\(variable)")
        }
    }

    @Test("the settings read only variables of the table, and every one but the token speak sets itself")
    func parsedNamesAreTheTable() {
        var asked: [String] = []
        _ = EnvironmentSettings { name in
            asked.append(name)
            return nil
        }
        let table = Set(EnvironmentSettings.variables.map(\.name))
        #expect(Set(asked).subtracting(table).sorted() == [])
        #expect(table.subtracting(asked).sorted() == ["SPEAK_TRANSCRIPTION_TOKEN"])
    }

    @Test("unset, every setting is its default")
    func defaults() {
        let settings = EnvironmentSettings(environment: [:])
        #expect(settings.voice == nil && settings.token == nil && settings.socket == nil)
        #expect(settings.voiceDirectories == [] && settings.modelDirectories == [])
        #expect(settings.wyomingLimits == nil && settings.whisperBeamSize == nil)
        #expect(!settings.fasterWhisperSpectrogram && !settings.whisperLog)
        #expect(settings.piperThreads == nil && settings.piperSpinning == nil && settings.piperArena == nil)
        #expect(settings.piperPiece == nil && settings.piperShrinkAbove == nil && settings.piperStream)
        #expect(settings.piperDictionaries == nil && settings.piperSplitTools == nil)
        #expect(settings.onnxRuntimeLibrary == nil)
    }

    @Test("empty values: unset where the table says so, kept where it matters")
    func emptyValues() {
        let names = EnvironmentSettings.variables.map(\.name)
        let settings = EnvironmentSettings(environment: Dictionary(uniqueKeysWithValues: names.map { ($0, "") }))
        #expect(settings.voice == nil && settings.piperSplitTools == nil && settings.onnxRuntimeLibrary == nil)
        #expect(settings.whisperBeamSize == nil)
        // An empty socket turns the hand-off off; an empty token is still the token given.
        #expect(settings.socket == "" && settings.token == "" && settings.piperDictionaries == "")
        #expect(settings.wyomingLimits == "")
        #expect(settings.voiceDirectories == [] && settings.modelDirectories == [] && settings.piperStream)
    }

    @Test("values in range are taken, others ignored or named")
    func values() {
        let settings = EnvironmentSettings(environment: [
            "SPEAK_VOICES": "/a::/b", "SPEAK_PIPER_THREADS": "64", "SPEAK_PIPER_SPINNING": "0",
            "SPEAK_PIPER_ARENA": "yes", "SPEAK_PIPER_PIECE": "1001", "SPEAK_PIPER_SHRINK_ABOVE": "0",
            "SPEAK_PIPER_STREAM": "0", "SPEAK_WHISPER_BEAM_SIZE": " 5\t", "SPEAK_WHISPER_SPECTROGRAM": "faster-whisper",
            "SPEAK_WHISPER_LOG": "true",
        ])
        #expect(settings.voiceDirectories == ["/a", "/b"])
        #expect(settings.piperThreads == 64 && settings.piperSpinning == false && settings.piperArena == nil)
        #expect(settings.piperPiece == nil && settings.piperShrinkAbove == 0 && !settings.piperStream)
        #expect(settings.whisperBeamSize == .success(5) && settings.fasterWhisperSpectrogram && !settings.whisperLog)
        let rejected = EnvironmentSettings(environment: ["SPEAK_WHISPER_BEAM_SIZE": "9"]).whisperBeamSize
        let expected = EnvironmentSettings.RejectedValue(name: "SPEAK_WHISPER_BEAM_SIZE", text: "9", accepted: "1 to 8")
        #expect(rejected == .failure(expected))
        #expect("\(expected)" == "SPEAK_WHISPER_BEAM_SIZE must be 1 to 8, not '9'")
    }
}
