import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakWyoming

/// A Wyoming session's audio reaches the transcriber through the engine: 16 kHz mono, converted
/// once from whatever rate, width and channels `audio-start` names, however the chunks cut it.
@Suite("Wyoming transcription")
struct WyomingTranscriptionTests {
    @Test("audio at 8-48 kHz, 1-3 bytes, 1-2 channels reaches the transcriber as 16 kHz mono, once resampled")
    func formats() throws {
        for format in TestAudio.formats {
            let bytes = TestAudio.tone(format, seconds: 0.25)
            let transcriber = CapturingTranscriber(text: "yes")
            let answer = try Self.transcribe(bytes, format: format, with: transcriber)
            #expect(answer.type == "transcript" && answer.string("text") == "yes", "\(format)")
            let heard = try #require(transcriber.heard.first, "\(format)")
            #expect(heard.sampleRate == 16000, "\(format)")
            let expected = TestAudio.oneStep(TestAudio.mono(bytes, format), from: format.sampleRate)
            #expect(TestAudio.difference(heard.samples, expected) == nil, "\(format)")
        }
    }

    /// Sends one recording over a socket pair to a session on its own thread, in chunks of 1001
    /// bytes (splitting frames), and returns the session's answer.
    static func transcribe(_ bytes: [UInt8], format: PCMFormat, with transcriber: any Transcriber) throws
        -> WyomingEvent
    {
        var descriptors: [Int32] = [0, 0]
        try #require(
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0)
        let (server, client) = (descriptors[0], descriptors[1])
        defer { close(client) }
        let engine = SpeechEngine(catalog: VoiceCatalog(voices: []), synthesizers: SynthesizerRegistry([:]))
        let service = WyomingService(engine: engine, transcriber: transcriber, transcriberInfo: nil)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            WyomingSession(descriptor: server, service: service).run()
            close(server)
            ended.signal()
        }.start()
        let layout: [String: JSONValue] = [
            "rate": .number(Double(format.sampleRate)), "width": .number(Double(format.width)),
            "channels": .number(Double(format.channels)),
        ]
        var events = [WyomingEvent("audio-start", layout)]
        for start in stride(from: 0, to: bytes.count, by: 1001) {
            events.append(
                WyomingEvent("audio-chunk", layout, payload: Array(bytes[start..<min(bytes.count, start + 1001)])))
        }
        events.append(WyomingEvent("audio-stop"))
        let wire = events.flatMap(\.encoded)
        try wire.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(client, buffer.baseAddress! + offset, buffer.count - offset)
                try #require(written > 0)
                offset += written
            }
        }
        // The transcript, past the streaming events before it.
        var reader = EventReader(descriptor: client)
        var answer = try #require(try reader.next())
        while answer.type != "transcript" && answer.type != "error" { answer = try #require(try reader.next()) }
        shutdown(client, Int32(SHUT_WR))
        ended.wait()
        return answer
    }
}
