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

    /// `seconds` of Gaussian noise at 16 kHz with an RMS of `level` (30: -61 dBFS, a quiet room's
    /// hiss), the same every time.
    static func noise(seconds: Double, level: Double) -> PCMBuffer {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            // SplitMix64: seeded, so a failure can be reproduced.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 0.5) / Double(1 << 53)
        }
        let samples = (0..<Int(seconds * 16000)).map { _ in
            Int16(level * (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform()))
        }
        return PCMBuffer(sampleRate: 16000, samples: samples)
    }

    /// `audio` (16 kHz) with ``noise(seconds:level:)`` under all of it, as a fan's would be.
    static func withNoise(_ audio: PCMBuffer, level: Double = 30) -> PCMBuffer {
        let noise = noise(seconds: audio.duration, level: level)
        return PCMBuffer(sampleRate: 16000, samples: zip(audio.samples, noise.samples).map { $0 &+ $1 })
    }

    /// Lowercase words without punctuation, for comparing texts.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }
}
