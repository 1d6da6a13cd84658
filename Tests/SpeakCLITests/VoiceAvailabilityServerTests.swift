import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// A voice whose model is missing fails alone: 503 for that voice, the rest of the server works.
@Suite("speak serve with a voice that is not installed")
struct VoiceAvailabilityServerTests {
    @Test("503 for the missing voice only; other voices answer, and /ready stays ready")
    func missingVoiceIsItsOwn503() throws {
        let voices = FileManager.default.temporaryDirectory.appendingPathComponent("voices-\(UUID())")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: voices) }
        try Data(#"{"name":"ghost","language":"en-US","engine":"piper","piper":{"model":"en_US-ghost.onnx"}}"#.utf8)
            .write(to: voices.appendingPathComponent("ghost.json"))
        let server = try RunningServer(["--voices-dir", voices.path])
        let client = WireClient(port: server.port, token: server.token)
        let ghost = client.call("POST", "/api/speak", json: #"{"text": "Boo.", "voice": "ghost"}"#)
        #expect(ghost.status == 503, "\(ghost.text)")
        #expect(ghost.text.contains("not installed"), "\(ghost.text)")
        let nadia = client.call("POST", "/api/speak", json: #"{"text": "Sannu.", "voice": "nadia"}"#)
        #expect(nadia.status == 200)
        let ready = client.call("GET", "/ready")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(ready.text.contains("voice:ghost"), "the missing voice is reported: \(ready.text)")
        _ = server.stop()
    }

    @Test(
        "a model that fails when it runs is a 503 for its voice; the server lives on and the others answer",
        .enabled(if: WyomingTests.joeInstalled))
    func damagedModelIsItsOwn503() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID())")
        let models = directory.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // joe as installed, with 4 KiB of its weights overwritten: it loads, then fails a node.
        let installed = URL(fileURLWithPath: "/usr/local/share/speak/models")
        for suffix in [".onnx", ".onnx.json"] {
            try FileManager.default.copyItem(
                at: installed.appendingPathComponent("en_US-joe-medium" + suffix),
                to: models.appendingPathComponent("en_US-bad-medium" + suffix))
        }
        let file = try FileHandle(forWritingTo: models.appendingPathComponent("en_US-bad-medium.onnx"))
        try file.seek(toOffset: 20_000_000)
        try file.write(contentsOf: Data(repeating: 0xFF, count: 4096))
        try file.close()
        try Data(#"{"name":"bad","language":"en-US","engine":"piper","piper":{"model":"en_US-bad-medium.onnx"}}"#.utf8)
            .write(to: directory.appendingPathComponent("bad.json"))
        let server = try RunningServer(["--voices-dir", directory.path], environment: ["SPEAK_MODELS": models.path])
        let client = WireClient(port: server.port, token: server.token)
        for _ in 0..<2 {
            let bad = client.call("POST", "/api/speak", json: #"{"text": "Hello.", "voice": "bad"}"#)
            #expect(bad.status == 503, "\(bad.status): \(bad.text)")
            #expect(bad.text.contains("damaged"), "\(bad.text)")
        }
        let nadia = client.call("POST", "/api/speak", json: #"{"text": "Sannu.", "voice": "nadia"}"#)
        #expect(nadia.status == 200)
        let stopped = server.stop()
        #expect(stopped.signal == nil && stopped.status == 0, "the server died: \(stopped.stderr.suffix(300))")
    }
}
