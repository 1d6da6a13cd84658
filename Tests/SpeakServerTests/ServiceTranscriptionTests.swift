import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// How the transcription routes hand an upload to the engine, in process and on the wire.
@Suite("SpeechService: transcription")
struct ServiceTranscriptionTests {
    /// A test-only transcriber that keeps the length of every piece it is handed.
    final class PieceRecorder: Transcriber {
        let lengths = Locked<[Int]>([])

        func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
            lengths.withLock { $0.append(audio.samples.count) }
            return Transcript(text: "piece", duration: Double(audio.samples.count) / Double(audio.sampleRate))
        }
    }

    @Test(
        "a long upload is transcribed five minutes at a time, as speak transcribe does, not decoded whole",
        arguments: Transport.allCases, ["/api/transcribe", "/v1/audio/transcriptions"])
    func longUploadGoesInPieces(transport: Transport, path: String) throws {
        let recorder = PieceRecorder()
        let harness = try transport.harness(transcriber: recorder)
        // Twelve minutes of a quiet 440 Hz tone at 8 kHz (11.5 MB, under the 25 MB upload limit).
        let rate = 8000
        let seconds = 720
        let samples = (0..<(rate * seconds)).map { Int16(300 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        let wav = WAV.encode(PCMBuffer(sampleRate: rate, samples: samples))
        let form = MultipartBody(
            fields: [("model", "whisper-1")],
            files: [MultipartBody.File(filename: "long.wav", contentType: "audio/wav", data: wav)])
        let answer = harness.upload(path, form)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.text.contains("piece piece piece"))
        let lengths = recorder.lengths.withLock { $0 }
        let rateHeard = TranscriptionEngine.sampleRate
        #expect(lengths.count == 3, "\(lengths)")
        #expect(lengths.allSatisfy { $0 <= TranscriptionEngine.pieceSeconds * rateHeard }, "\(lengths)")
        #expect(abs(lengths.reduce(0, +) - seconds * rateHeard) < rateHeard / 10, "\(lengths)")
    }
}
