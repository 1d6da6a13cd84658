import Foundation
import Testing

@testable import SpeakKit
@testable import SpeakMedia

@Suite("Media decoding")
struct MediaDecoderTests {
    static let samples = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Samples")

    static func fixture(_ name: String) throws -> Data { try Data(contentsOf: samples.appending(path: name)) }

    /// The reference: the 16 kHz mono WAV every other fixture was encoded from.
    static let reference = try! WAV.decode(fixture("yes.wav"))

    /// Encoder padding and priming allowed on top of the reference's duration.
    static let durationTolerance = 0.06

    static func expectLikeReference(_ pcm: PCMBuffer, _ name: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(pcm.sampleRate == 16000, "\(name)", sourceLocation: sourceLocation)
        #expect(
            abs(pcm.duration - reference.duration) <= durationTolerance,
            "\(name): \(pcm.duration) s vs \(reference.duration) s", sourceLocation: sourceLocation)
        let ratio = pcm.rms / reference.rms
        #expect(
            ratio > 0.7 && ratio < 1.4, "\(name): level \(pcm.rms) vs \(reference.rms)", sourceLocation: sourceLocation)
    }

    /// "notAudio", "unsupported", or a description of any other error.
    static func failure(_ body: () throws -> PCMBuffer) -> String {
        do {
            let pcm = try body()
            return "decoded \(pcm.samples.count) samples"
        } catch let error as AudioFileError {
            switch error {
            case .notAudio: return "notAudio"
            case .unsupported: return "unsupported"
            case .tooLong: return "tooLong"
            case .tooShort: return "tooShort"
            }
        } catch {
            return "\(type(of: error)): \(error)"
        }
    }

    static let formats = ["yes.wav", "yes.mp3", "yes.m4a", "yes-moov-at-end.m4a", "yes.webm", "yes.ogg", "yes.flac"]

    @Test("each format decodes from memory to 16 kHz mono, as long and as loud as the original", arguments: formats)
    func fromData(name: String) throws {
        Self.expectLikeReference(try MediaDecoder.decode(Self.fixture(name)), name)
    }

    @Test("each format decodes from a file", arguments: formats)
    func fromFile(name: String) throws {
        Self.expectLikeReference(try MediaDecoder.decode(file: Self.samples.appending(path: name)), name)
    }

    @Test(
        "a decode runs to maximumSeconds and no further: 1.7 s of audio is tooLong at 1 s, whole at 2",
        arguments: formats)
    func maximumSeconds(name: String) throws {
        #expect(Self.failure { try MediaDecoder.decode(Self.fixture(name), maximumSeconds: 1) } == "tooLong", "\(name)")
        Self.expectLikeReference(try MediaDecoder.decode(Self.fixture(name), maximumSeconds: 2), name)
    }

    @Test("WAV already at the wanted rate comes through sample for sample")
    func wavIsExact() throws {
        #expect(try MediaDecoder.decode(Self.fixture("yes.wav")) == Self.reference)
    }

    @Test("stereo 44.1 kHz AAC comes out mono 16 kHz")
    func stereoAAC() throws {
        Self.expectLikeReference(try MediaDecoder.decode(Self.fixture("yes-stereo-44k.m4a")), "stereo m4a")
    }

    @Test("stereo WAV at 44.1 kHz and at 16 kHz comes out mono 16 kHz", arguments: [44100, 16000])
    func stereoWAV(rate: Int) throws {
        // The reference, resampled and doubled into two channels, in a hand-made stereo header.
        var resampler = Resampler(inputRate: 16000, outputRate: rate)
        let mono = resampler.process(Self.reference.samples) + resampler.finish()
        var wav = WAV.header(sampleRate: rate, dataBytes: mono.count * 4)
        func put(_ value: Int, at offset: Int, bytes: Int) {
            for i in 0..<bytes { wav[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        put(2, at: 22, bytes: 2)  // channels
        put(rate * 4, at: 28, bytes: 4)  // bytes per second
        put(4, at: 32, bytes: 2)  // bytes per frame
        for sample in mono {
            withUnsafeBytes(of: sample.littleEndian) { wav.append(contentsOf: Array($0) + Array($0)) }
        }
        Self.expectLikeReference(try MediaDecoder.decode(wav), "stereo WAV at \(rate) Hz")
    }

    @Test("other output rates", arguments: [8000, 22050, 48000])
    func otherRates(rate: Int) throws {
        for name in ["yes.m4a", "yes.wav"] {
            let pcm = try MediaDecoder.decode(Self.fixture(name), sampleRate: rate)
            #expect(pcm.sampleRate == rate)
            #expect(
                abs(pcm.duration - Self.reference.duration) <= Self.durationTolerance,
                "\(name) at \(rate): \(pcm.duration)")
        }
    }

    @Test("inputs that are not audio are refused as notAudio, never crash")
    func notAudio() throws {
        var generator = SplitMix(seed: 7)
        let garbage = (0..<5).map { _ in Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        var cases: [(String, Data)] = [
            ("empty", Data()),
            ("text", Data("Hello, this is a text file and not audio.\nSecond line.\n".utf8)),
            ("JSON", Data(#"{"model":"whisper-1","file":"yes.m4a"}"#.utf8)),
            ("one byte", Data([0])),
            ("RIFF header only", Data("RIFF\0\0\0\0WAVE".utf8)),
            ("m4a cut inside its header", try Self.fixture("yes.m4a").prefix(200)),
            ("m4a with its index at the end, cut", try Self.fixture("yes-moov-at-end.m4a").prefix(6000)),
            ("WebM cut inside its header", try Self.fixture("yes.webm").prefix(100)),
        ]
        cases += garbage.enumerated().map { ("random bytes \($0.offset)", $0.element) }
        for (name, data) in cases {
            #expect(Self.failure { try MediaDecoder.decode(data) } == "notAudio", "\(name)")
        }
    }

    @Test("a text file on disk is refused")
    func textFile() throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "speak-not-audio-\(UUID()).m4a")
        try Data("not audio, whatever the name says\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(Self.failure { try MediaDecoder.decode(file: file) } == "notAudio")
    }

    @Test("a missing file is a file error, not an audio one")
    func missingFile() {
        #expect(throws: CocoaError.self) { try MediaDecoder.decode(file: URL(filePath: "/nonexistent/speak/yes.m4a")) }
    }

    @Test(
        "files cut mid-stream keep the audio before the cut",
        arguments: ["yes.m4a", "yes.webm", "yes.ogg", "yes.flac", "yes.mp3"])
    func truncated(name: String) throws {
        let data = try Self.fixture(name)
        let pcm = try MediaDecoder.decode(data.prefix(data.count * 2 / 3))
        #expect(pcm.sampleRate == 16000)
        #expect(pcm.duration > 0.3 && pcm.duration < Self.reference.duration - 0.1, "\(name): \(pcm.duration) s")
    }

    @Test(
        "corrupted bodies decode or are refused, never crash",
        arguments: ["yes.m4a", "yes.webm", "yes.ogg", "yes.flac", "yes.mp3"])
    func corrupted(name: String) throws {
        var generator = SplitMix(seed: 11)
        var data = try Self.fixture(name)
        for _ in 0..<200 {
            data[Int.random(in: data.count / 4..<data.count, using: &generator)] = .random(
                in: 0...255, using: &generator)
        }
        let outcome = Self.failure { try MediaDecoder.decode(data) }
        #expect(outcome.hasPrefix("decoded") || outcome == "notAudio", "\(name): \(outcome)")
    }

    @Test("a stream decodes each format from a file, piece by piece, to what a whole decode gives", arguments: formats)
    func stream(name: String) throws {
        let file = open(Self.samples.appending(path: name).path, O_RDONLY)
        #expect(file >= 0)
        defer { close(file) }
        let whole = try MediaDecoder.decode(Self.fixture(name))
        let stream = try MediaDecodingStream(descriptor: file)
        var samples: [Int16] = []
        while case let piece = try stream.read(upTo: 1000), !piece.isEmpty {
            #expect(piece.count <= 1000)
            samples += piece
        }
        #expect(samples == whole.samples, "\(name)")
        // The same descriptor again: measured without keeping, then refused past a limit.
        #expect(try MediaDecodingStream(descriptor: file).skipToEnd() == whole.samples.count, "\(name)")
        let limited = Self.failure {
            // WAV is refused when opened (its header tells its length), the others as they decode.
            let skipped = try MediaDecodingStream(descriptor: file, maximumSeconds: 1).skipToEnd()
            return PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 0, count: skipped))
        }
        #expect(limited == "tooLong", "\(name)")
    }

    @Test("decodes run in parallel")
    func parallel() async throws {
        let data = try Self.fixture("yes.webm")
        let durations = try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<8 { group.addTask { try MediaDecoder.decode(data).duration } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(durations).count == 1)
    }
}

/// A seeded generator, so the garbage is the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
