import Foundation
import SpeakKit
import Testing

@testable import SpeakWhisper

@Suite("whisper models: finding them, refusing bad ones")
struct WhisperModelTests {
    /// A scratch models directory, removed at the end of the test.
    final class Directory {
        let path: String
        init() throws {
            path =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("speak-models-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    }

    @Test("the directories are searched in the documented order")
    func searchOrder() {
        let directories = WhisperModel.searchDirectories(
            modelsDirectory: "/opt/models",
            environment: ["SPEAK_MODELS": "/a:/b", "XDG_DATA_HOME": "/x", "HOME": "/h"],
            executablePath: "/usr/local/bin/speak")
        #expect(
            directories == [
                "/opt/models", "/a", "/b", "/x/speak/models", "/usr/local/share/speak/models",
                "/usr/share/speak/models",
            ])
        let plain = WhisperModel.searchDirectories(environment: ["HOME": "/h"], executablePath: "/opt/speak/bin/speak")
        #expect(
            plain == [
                "/h/.local/share/speak/models", "/opt/speak/share/speak/models", "/usr/local/share/speak/models",
                "/usr/share/speak/models",
            ])
    }

    @Test("models are found by name, by path, and by preference")
    func find() throws {
        let first = try Directory()
        let second = try Directory()
        let installed = try WhisperModel.find("tiny.en")
        for link in [first.file("ggml-tiny.en.bin"), second.file("ggml-tiny.en.bin"), second.file("ggml-base.bin")] {
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: installed.path)
        }
        let directories = [first.path, second.path]
        #expect(try WhisperModel.find("tiny.en", in: directories).path == first.file("ggml-tiny.en.bin"))
        #expect(try WhisperModel.find("base", in: directories).path == second.file("ggml-base.bin"))
        #expect(try WhisperModel.find(nil, in: directories).name == "base")
        #expect(try WhisperModel.find(nil, in: [first.path]).name == "tiny.en")
        #expect(try WhisperModel.find(installed.path, in: []).path == installed.path)
        #expect(WhisperModel.installed(in: directories).map(\.name) == ["tiny.en", "base"])
        #expect(try WhisperModel.find("tiny.en", in: directories).header().isMultilingual == false)
        #expect(try WhisperModel.find("base").header().isMultilingual)
    }

    @Test("a missing model is a one-line modelMissing error")
    func missing() throws {
        let empty = try Directory()
        let byName = #expect(throws: WhisperError.self) { try WhisperModel.find("small", in: [empty.path]) }
        #expect(byName?.kind == .modelMissing)
        #expect(byName?.description.contains("'small'") == true)
        let none = #expect(throws: WhisperError.self) { try WhisperModel.find(nil, in: [empty.path]) }
        #expect(none?.kind == .modelMissing)
        let byPath = #expect(throws: WhisperError.self) { try WhisperTranscriber(model: empty.file("ggml-gone.bin")) }
        #expect(byPath?.kind == .modelMissing)
        for error in [byName, none, byPath] {
            #expect(error.map { !$0.description.contains("\n") } == true)
        }
    }

    @Test("a file that is not a model, or a damaged one, is a one-line modelCorrupt error")
    func corrupt() throws {
        let directory = try Directory()
        let garbage = directory.file("ggml-garbage.bin")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let truncated = directory.file("ggml-truncated.bin")
        let real = try FileHandle(forReadingFrom: URL(fileURLWithPath: WhisperModel.find("tiny.en").path))
        try real.read(upToCount: 8 << 20)!.write(to: URL(fileURLWithPath: truncated))
        try real.close()
        let empty = directory.file("ggml-empty.bin")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for path in [garbage, truncated, empty] {
            let error = #expect(throws: WhisperError.self) {
                try WhisperTranscriber(model: WhisperModel(path: path))
            }
            #expect(error?.kind == .modelCorrupt, "\(path)")
            #expect(
                error.map { $0.description.contains(path) && !$0.description.contains("\n") } == true,
                "\(String(describing: error))")
        }
        // The good model still loads afterwards.
        #expect(throws: Never.self) { try WhisperTranscriber(model: "tiny.en") }
    }

    @Test("a model cut short anywhere is a one-line modelCorrupt error, never a crash or a model with no weights")
    func cutShort() throws {
        let real = try Data(contentsOf: URL(fileURLWithPath: WhisperModel.find("tiny.en").path))
        func int32(_ at: Int) -> Int {
            real.withUnsafeBytes { Int(Int32(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: Int32.self))) }
        }
        // The tensors start after the 48-byte header, the mel filters and the vocabulary.
        var tensors = 56 + int32(48) * int32(52) * 4
        let tokens = int32(tensors)
        tensors += 4
        for _ in 0..<tokens { tensors += 4 + int32(tensors) }
        let directory = try Directory()
        let cuts = [
            (1000, "the mel filters"), (tensors - 10, "the vocabulary"), (tensors, "no tensors"),
            (tensors + 40, "tensor 1"),
        ]
        for (length, place) in cuts {
            let path = directory.file("ggml-cut-\(length).bin")
            try real.prefix(length).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: WhisperError.self) { try WhisperTranscriber(model: WhisperModel(path: path)) }
            #expect(error?.kind == .modelCorrupt)
            #expect(
                error.map { $0.description.contains(place) && !$0.description.contains("\n") } == true,
                "\(String(describing: error))")
        }
    }

    @Test("heard text is matched to the closest expected phrase, or to none")
    func phraseMatching() {
        let answers = ["yes", "no", "cancel"]
        func match(_ heard: String, _ phrases: [String] = answers) -> String? {
            ExpectedPhrases.closest(to: heard, among: phrases, tolerance: 0.34)
        }
        #expect(match(" Yes.") == "yes")
        #expect(match("No!") == "no")
        #expect(match("Cancel it, please.") == "cancel")
        #expect(match("Cancelled.") == "cancel")
        #expect(match("Yeah.") == nil)
        #expect(match("No, cancel.") == nil)
        #expect(match("The weather is nice.") == nil)
        #expect(match("") == nil)
        let phrases = ["Deploy to production", "Roll back", "no", "no thanks"]
        #expect(match("Deploy to production.", phrases) == "Deploy to production")
        #expect(match("Deploy the production", phrases) == "Deploy to production")
        #expect(match("No, thanks.", phrases) == "no thanks")
        #expect(match("Roll it back", phrases) == "Roll back")
    }
}
