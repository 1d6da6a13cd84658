import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// `speak -v joe …` hands its text to a running `speak serve` on the local socket (its model is
/// loaded already) and speaks it itself when there is none.
@Suite("hand-off to a local speak serve")
struct LocalHandoffTests {
    /// The sample rate of a WAV file's header.
    static func sampleRate(_ path: String) throws -> Int {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(28)
        return header.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    }

    /// A scratch directory, and a `speak serve` listening on its own local socket there.
    static func serverOnSocket() throws -> (directory: URL, socket: String, server: RunningServer) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("run/serve.sock").path
        let server = try RunningServer(environment: ["SPEAK_SOCKET": socket])
        try poll("the local socket", seconds: 30) { FileManager.default.fileExists(atPath: socket) }
        return (directory, socket, server)
    }

    @Test("a neural voice goes through the server's socket, without a token; with no server it is made here")
    func handsOff() throws {
        let (directory, socket, server) = try Self.serverOnSocket()
        defer { try? FileManager.default.removeItem(at: directory) }
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let text = "The nightly backup finished successfully."
        // The server keeps what it synthesised in its reply cache: one entry more means it spoke.
        let entries = { try FileManager.default.subpathsOfDirectory(atPath: server.cacheDirectory.path).count }
        let before = try entries()
        let served = directory.appendingPathComponent("served.wav").path
        let result = try Speak.run(["-v", "joe", "-o", served, text], environment: ["SPEAK_SOCKET": socket])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try entries() > before, "the server made the audio")
        // At the model's own rate, as when this command makes it.
        #expect(try Self.sampleRate(served) == 22_050)
        // An M4A is written by speak-full, whose commands hand off as the light speak's do.
        let beforeM4A = try entries()
        let m4a = directory.appendingPathComponent("served.m4a").path
        let written = try Speak.run(
            ["-v", "joe", "-o", m4a, "The weekly report is ready."], environment: ["SPEAK_SOCKET": socket])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try entries() > beforeM4A, "the server made the M4A's audio")

        let handedOff = try entries()
        let alone = directory.appendingPathComponent("alone.wav").path
        let local = try Speak.run(
            ["-v", "joe", "-o", alone, text],
            environment: ["SPEAK_SOCKET": directory.appendingPathComponent("none.sock").path])
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try entries() == handedOff, "made here, not by the server")
        #expect(try Self.sampleRate(alone) == 22_050)
        // The same speech either way. Piper's durations are sampled (noise_w), so two syntheses of
        // one text differ a little: within a fifth.
        let seconds = { (path: String, rate: Double) in
            Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) - 44) / 2 / rate
        }
        let (viaServer, here) = (try seconds(served, 22_050), try seconds(alone, 22_050))
        #expect(here > 1 && abs(viaServer - here) < here / 5, "\(viaServer) s against \(here) s")

        // The port still wants the token; the socket, only its owner can open, does not.
        #expect(WireClient(port: server.port).call("GET", "/voices").status == 401)
        #expect(WireClient(.unix(path: socket)).call("GET", "/voices").status == 200)
        _ = server.stop()
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// The audio of a WAV file speak wrote.
    static func audio(_ path: String) throws -> PCMBuffer {
        try PCMBuffer(audio: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("rate, volume, SSML and the voice reach the server as given: as long and as loud as the command's own")
    func optionsReachTheServer() throws {
        let (directory, socket, server) = try Self.serverOnSocket()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = { try FileManager.default.subpathsOfDirectory(atPath: server.cacheDirectory.path).count }

        let text = "<speak>The nightly backup <emphasis>finished</emphasis> successfully.</speak>"
        let flags = ["-v", "joe", "--ssml", "--volume", "40", "-r", "260"]
        let before = try entries()
        let served = directory.appendingPathComponent("served.wav").path
        let result = try Speak.run(flags + ["-o", served, text], environment: ["SPEAK_SOCKET": socket])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try entries() > before, "the server made the SSML reply")
        // Asked again: the server's stored reply, the same samples.
        let stored = try entries()
        let again = directory.appendingPathComponent("again.wav").path
        #expect(try Speak.run(flags + ["-o", again, text], environment: ["SPEAK_SOCKET": socket]).status == 0)
        #expect(try entries() == stored)
        #expect(try Self.audio(again).samples == Self.audio(served).samples, "the stored reply differs")

        let alone = directory.appendingPathComponent("alone.wav").path
        let none = directory.appendingPathComponent("none.sock").path
        let local = try Speak.run(flags + ["-o", alone, text], environment: ["SPEAK_SOCKET": none])
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try entries() == stored, "made here, not by the server")
        // Piper samples its durations (noise_w), so two syntheses differ a little: within a fifth.
        let (viaServer, here) = (try Self.audio(served), try Self.audio(alone))
        #expect(
            here.samples.count > 22_050 / 2
                && abs(viaServer.samples.count - here.samples.count) < here.samples.count / 5,
            "\(viaServer.samples.count) \(here.samples.count)")
        let loudness = viaServer.rms / here.rms
        #expect(loudness > 0.8 && loudness < 1.25, "level via the server / here: \(loudness)")

        // The voice goes whole too: a joe of the command's own (another voice file, slower) is not
        // the server's joe, so the command makes it itself.
        let voices = directory.appendingPathComponent("voices")
        try FileManager.default.createDirectory(at: voices, withIntermediateDirectories: true)
        let slowJoe =
            #"{"name": "joe", "language": "en-US", "engine": "piper", "rate": 120, "#
            + #""piper": {"model": "en_US-joe-medium.onnx"}}"#
        try Data(slowJoe.utf8).write(to: voices.appendingPathComponent("joe.json"))
        let own = directory.appendingPathComponent("own.wav").path
        let ownResult = try Speak.run(
            ["--voices-dir", voices.path, "-v", "joe", "-o", own, "Hello."], environment: ["SPEAK_SOCKET": socket])
        #expect(ownResult.status == 0, "\(ownResult.stderr)")
        #expect(try entries() == stored, "the server did not speak its own joe instead")
        _ = server.stop()
    }

    @Test("a second server finds the socket taken, says so once, and serves its port")
    func socketTaken() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("run/serve.sock").path
        let first = try RunningServer(environment: ["SPEAK_SOCKET": socket])
        let second = try RunningServer(environment: ["SPEAK_SOCKET": socket])
        #expect(WireClient(.unix(path: socket)).call("GET", "/health").status == 200)
        let stopped = second.stop()
        #expect(stopped.stderr.contains("no local socket: \(socket) is in use by another server"), "\(stopped.stderr)")
        #expect(FileManager.default.fileExists(atPath: socket), "the second server removed the first one's socket")
        _ = first.stop()
    }
}
