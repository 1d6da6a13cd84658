import Foundation
import SpeakKit

/// Test audio: sentences spoken by the `espeak-ng` command, read with SpeakKit's WAV reader and
/// resampled to whisper's 16 kHz.
enum Speech {
    /// `text` spoken by espeak-ng's `voice` at its native rate (22050 Hz).
    static func native(_ text: String, voice: String = "en-us", speed: Int = 165) throws -> PCMBuffer {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("speak-whisper-test-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", voice, "-s", String(speed), "-w", file.path, text]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try WAV.decode(Data(contentsOf: file))
    }

    /// `text` at 16 kHz with `pause` seconds of silence before and after it.
    static func clip(_ text: String, voice: String = "en-us", pause: Double = 0.3) throws -> PCMBuffer {
        let audio = try native(text, voice: voice)
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: 16000)
        let silence = [Int16](repeating: 0, count: Int(pause * 16000))
        let speech = resampler.process(audio.samples) + resampler.finish()
        return PCMBuffer(sampleRate: 16000, samples: silence + speech + silence)
    }

    /// The clips one after another, as one recording.
    static func joined(_ clips: [PCMBuffer]) -> PCMBuffer {
        PCMBuffer(sampleRate: 16000, samples: clips.flatMap(\.samples))
    }

    /// Lowercase words without punctuation, for comparing texts.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }
}
