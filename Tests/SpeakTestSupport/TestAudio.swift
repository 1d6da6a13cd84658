import Foundation
import SpeakKit

/// Raw PCM in any layout, and what transcription should make of it, written out independently of
/// the code under test.
public enum TestAudio {
    /// Rates and layouts a transcriber's input comes in: 8 to 48 kHz, 1 to 3 bytes, 1 or 2 channels.
    public static let formats = [8000, 16000, 22050, 44100, 48000].flatMap { rate in
        [1, 2, 3].flatMap { width in [1, 2].map { PCMFormat(sampleRate: rate, width: width, channels: $0) } }
    }

    /// 16-bit samples as little-endian PCM bytes.
    public static func bytes<Samples: Collection<Int16>>(_ samples: Samples) -> [UInt8] {
        samples.flatMap { [UInt8(UInt16(bitPattern: $0) & 0xFF), UInt8(UInt16(bitPattern: $0) >> 8)] }
    }

    /// Feeds 16 kHz `samples` to `live` in 0.1 s chunks, as a microphone delivers them, then ends
    /// the audio; every event with the audio time it came at. With `clock` (the session's), each
    /// chunk arrives when its last sample is spoken, or later if a decode took longer.
    public static func feed(_ samples: [Int16], to live: LiveTranscription, clock: AudioClock? = nil) throws -> [(
        time: Double, event: LiveTranscription.Event
    )] {
        let rate = TranscriptionEngine.sampleRate
        var events: [(time: Double, event: LiveTranscription.Event)] = []
        for start in stride(from: 0, to: samples.count, by: rate / 10) {
            let end = min(samples.count, start + rate / 10)
            if let clock { clock.seconds = max(clock.seconds, Double(end) / Double(rate)) }
            events += try live.append(bytes(samples[start..<end])).map { (Double(end) / Double(rate), $0) }
        }
        events += try live.finish().map { (Double(samples.count) / Double(rate), $0) }
        return events
    }

    /// A chord, a different one in each channel, near full scale, as interleaved bytes in `format`.
    public static func tone(_ format: PCMFormat, seconds: Double) -> [UInt8] {
        let frames = Int(seconds * Double(format.sampleRate))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.frameBytes)
        for frame in 0..<frames {
            let time = Double(frame) / Double(format.sampleRate)
            for channel in 0..<format.channels {
                let base = 220.0 * Double(channel + 1)
                let value = 0.6 * sin(2 * .pi * base * time) + 0.3 * sin(2 * .pi * base * 3.7 * time)
                if format.width == 1 {
                    bytes.append(UInt8(128 + Int((value * 127).rounded())))
                } else {
                    let scale = Double((1 << (format.width * 8 - 1)) - 1)
                    let sample = Int((value * scale).rounded())
                    for byte in 0..<format.width { bytes.append(UInt8(truncatingIfNeeded: sample >> (byte * 8))) }
                }
            }
        }
        return bytes
    }

    /// The bytes as mono 16-bit at their own rate: each sample's two most significant bytes (an
    /// unsigned byte centred on 128), the channels averaged.
    public static func mono(_ bytes: [UInt8], _ format: PCMFormat) -> [Int16] {
        func sample(at offset: Int) -> Int {
            if format.width == 1 { return (Int(bytes[offset]) - 128) << 8 }
            let top = offset + format.width - 1
            return Int(Int16(bitPattern: UInt16(bytes[top - 1]) | UInt16(bytes[top]) << 8))
        }
        return stride(from: 0, to: bytes.count - format.frameBytes + 1, by: format.frameBytes).map { frame in
            let sum = (0..<format.channels).reduce(0) { $0 + sample(at: frame + $1 * format.width) }
            return Int16(sum / format.channels)
        }
    }

    /// `samples` at `rate` taken to 16 kHz in one step of SpeakKit's resampler.
    public static func oneStep(_ samples: [Int16], from rate: Int) -> [Int16] {
        var resampler = Resampler(inputRate: rate, outputRate: 16000)
        return resampler.process(samples) + resampler.finish()
    }

    /// Where `heard` first differs from `expected`, or `nil` when they are the same (a short message
    /// where a failed comparison of arrays would print thousands of samples).
    public static func difference(_ heard: [Int16], _ expected: [Int16]) -> String? {
        if let index = (0..<min(heard.count, expected.count)).first(where: { heard[$0] != expected[$0] }) {
            return "sample \(index) is \(heard[index]), not \(expected[index])"
        }
        return heard.count == expected.count ? nil : "\(heard.count) samples, not \(expected.count)"
    }

    /// A PCM WAV file of ``tone(_:seconds:)`` in `format`, in the temporary directory.
    public static func wavFile(_ format: PCMFormat, seconds: Double) throws -> URL {
        let samples = tone(format, seconds: seconds)
        var data = Data("RIFF".utf8)
        func append(_ value: Int, bytes: Int) {
            for byte in 0..<bytes { data.append(UInt8(truncatingIfNeeded: value >> (byte * 8))) }
        }
        append(36 + samples.count, bytes: 4)
        data += Data("WAVEfmt ".utf8)
        append(16, bytes: 4)
        append(1, bytes: 2)
        append(format.channels, bytes: 2)
        append(format.sampleRate, bytes: 4)
        append(format.sampleRate * format.frameBytes, bytes: 4)
        append(format.frameBytes, bytes: 2)
        append(format.width * 8, bytes: 2)
        data += Data("data".utf8)
        append(samples.count, bytes: 4)
        data += samples
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("speak-audio-\(UUID().uuidString).wav")
        try data.write(to: file)
        return file
    }
}

/// A live session's wall clock in a test: it reads what the test sets, so a test feeds audio as
/// fast as it can while the session sees it arrive as spoken.
public final class AudioClock: Sendable {
    private let time = Locked(0.0)

    public init() {}

    public var seconds: Double {
        get { time.withLock { $0 } }
        set { time.withLock { $0 = newValue } }
    }

    /// Moves the clock on by `interval` in one step, so a decode on another thread adds to it.
    public func advance(by interval: Double) { time.withLock { $0 += interval } }

    public func now() -> Double { seconds }
}
