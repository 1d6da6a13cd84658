import Foundation
import SpeakTestSupport
import Testing

/// A neural voice's memory: ONNX Runtime's arena grows to the largest run it has made, and would
/// keep that for the life of the server.
@Suite("speak serve: a neural voice gives back what run-on text took", .serialized)
struct NeuralMemoryTests {
    static func residentMegabytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) >> 10
    }

    @Test("after 1,500 digits without a break, the server holds at most 150 MB more than after a paragraph")
    func runOnTextIsGivenBack() throws {
        let server = try RunningServer(["--cache-bytes", "0"])
        let client = WireClient(port: server.port, token: server.token)
        func speak(_ text: String) throws {
            let body = #"{"model": "tts-1", "voice": "joe", "response_format": "wav", "input": "\#(text)"}"#
            let reply = client.call("POST", "/v1/audio/speech", json: body)
            #expect(reply.status == 200 && !reply.cut)
        }
        try speak(
            "The build finished a few minutes ago. Every test passed on the first try. "
                + "The release notes are ready for review. Please check the dashboard before lunch.")
        let before = try Self.residentMegabytes(server.process.pid)
        var generator = SystemRandomNumberGenerator()
        try speak(String((0..<1500).map { _ in "0123456789".randomElement(using: &generator)! }))
        let after = try Self.residentMegabytes(server.process.pid)
        #expect(after - before <= 150, "\(before) MB after the paragraph, \(after) MB after the digits")
    }
}
