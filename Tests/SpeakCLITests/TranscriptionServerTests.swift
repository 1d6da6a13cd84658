import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// `/api/transcribe` and `/v1/audio/transcriptions` on a real `speak serve`, called as the mobile
/// client and the `openai` package call them.
@Suite("speak serve: transcription", .serialized)
final class TranscriptionServerTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Samples"
    ).standardizedFileURL
    let server: RunningServer
    let client: WireClient

    init() throws {
        server = try RunningServer()
        client = WireClient(port: server.port, token: server.token)
    }

    /// `file` posted as a form's `file` part, as the mobile client posts a recording.
    func upload(
        _ path: String, _ fields: [String: String] = [:], file: URL, type: String = "audio/mp4",
        name: String = "note.m4a"
    ) throws -> ServiceAnswer {
        let part = MultipartBody.File(filename: name, contentType: type, data: try Data(contentsOf: file))
        return client.upload(path, MultipartBody(fields: fields.sorted { $0.key < $1.key }, files: [part]))
    }

    @Test("POST /api/transcribe takes the seed client's upload: language field, note.m4a as audio/mp4")
    func apiTranscribe() throws {
        let free = try upload(
            "/api/transcribe", ["language": "en"], file: Self.samples.appendingPathComponent("yes.m4a"))
        #expect(free.status == 200, "\(free.text)")
        #expect(!(try #require(free.json?["text"]?.string)).isEmpty)
        let expected = try upload(
            "/api/transcribe", ["language": "en", "expect": "yes please do that|no|cancel"],
            file: Self.samples.appendingPathComponent("yes.m4a"))
        #expect(expected.json?["text"]?.string == "yes please do that")
    }

    @Test(
        "every upload format is decoded",
        arguments: ["yes.webm", "yes.ogg", "yes.flac", "yes.mp3", "yes.wav", "yes-stereo-44k.m4a"])
    func formats(name: String) throws {
        let reply = try upload(
            "/api/transcribe", ["expect": "yes please do that|no"], file: Self.samples.appendingPathComponent(name),
            type: "application/octet-stream", name: name)
        #expect(reply.json?["text"]?.string == "yes please do that", "\(name): \(reply.text)")
    }

    @Test("a file that is not audio gets 415, a damaged one 400, no file 400")
    func badUploads() throws {
        let text = server.directory.appendingPathComponent("notes.txt")
        try Data("not audio at all\n".utf8).write(to: text)
        let notAudio = try upload("/api/transcribe", file: text, type: "text/plain", name: "notes.txt")
        #expect(notAudio.status == 415, "\(notAudio.text)")
        let damaged = server.directory.appendingPathComponent("cut.m4a")
        try Data(contentsOf: Self.samples.appendingPathComponent("yes.m4a")).prefix(300).write(to: damaged)
        let cut = try upload("/api/transcribe", file: damaged)
        #expect(cut.status == 400, "\(cut.text)")
        let noFile = client.upload("/api/transcribe", MultipartBody(fields: [("language", "en")]))
        #expect(noFile.status == 400)
        #expect(noFile.errorMessage?.contains("'file'") == true)
        let json = client.call("POST", "/api/transcribe", json: "{}")
        #expect(json.status == 400)
    }

    @Test("an upload over 25 MB gets 413 without the server reading it or growing")
    func uploadTooLarge() throws {
        func residentKilobytes() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(server.process.pid)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        let big = server.directory.appendingPathComponent("big.wav")
        try Data(repeating: 0, count: 30 << 20).write(to: big)
        let before = try residentKilobytes()
        let reply = try upload(
            "/v1/audio/transcriptions", ["model": "whisper-1"], file: big, type: "audio/wav", name: "big.wav")
        #expect(reply.status == 413)
        #expect(try residentKilobytes() - before < 8 << 10, "the server grew")
    }

    @Test(
        "the openai package transcribes unchanged, in every response format",
        arguments: ["json", "text", "verbose_json", "srt", "vtt"])
    func openAIClient(format: String) throws {
        let script = """
            import json
            from openai import OpenAI
            client = OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            with open("\(Self.samples.appendingPathComponent("yes.m4a").path)", "rb") as audio:
                result = client.audio.transcriptions.create(model="whisper-large-v3-turbo", file=audio, language="en",
                    response_format="\(format)", extra_body={"expect": "yes please do that|no|cancel"})
            print(result if isinstance(result, str) else json.dumps(result.model_dump()))
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.stdout
        #expect(output.contains("yes please do that"), "\(output)")
        switch format {
        case "verbose_json": #expect(output.contains("\"segments\"") && output.contains("\"duration\""))
        case "srt": #expect(output.contains("00:00:0") && output.contains(" --> "))
        case "vtt": #expect(output.hasPrefix("WEBVTT"))
        default: break
        }
    }
}
