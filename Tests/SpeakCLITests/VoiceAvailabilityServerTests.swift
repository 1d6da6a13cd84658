import Foundation
import SpeakKit
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
        let ghost = try server.authorized(["-d", #"{"text": "Boo.", "voice": "ghost"}"#, "\(server.url)/api/speak"])
        #expect(ghost.status == 503, "\(ghost.text)")
        #expect(ghost.text.contains("not installed"), "\(ghost.text)")
        let nadia = try server.authorized(["-d", #"{"text": "Sannu.", "voice": "nadia"}"#, "\(server.url)/api/speak"])
        #expect(nadia.status == 200)
        let ready = try server.authorized(["\(server.url)/ready"])
        #expect(ready.status == 200, "\(ready.text)")
        #expect(ready.text.contains("voice:ghost"), "the missing voice is reported: \(ready.text)")
        _ = server.stop()
    }
}
