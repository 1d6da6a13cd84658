import Foundation
import SpeakKit
import SpeakMedia
import SpeakTestSupport
import Testing

/// A long recording reaches the transcriber in pieces of at most five minutes, cut in a pause,
/// and comes back as one transcript; audio past the limit or under 0.01 s is refused first.
@Suite("TranscriptionEngine: long recordings in pieces")
struct TranscriptionPiecesTests {
    static let rate = TranscriptionEngine.sampleRate

    /// `seconds` of a loud tone, silent from `gap.lowerBound` to `gap.upperBound` seconds, as a WAV file.
    static func recording(seconds: Double, gap: ClosedRange<Double>? = nil) throws -> (URL, Int32) {
        let count = Int(seconds * Double(rate))
        var samples = (0..<count).map { Int16(8000 * sin(Double($0) * 2 * .pi * 440 / Double(rate))) }
        if let gap {
            for index in Int(gap.lowerBound * Double(rate))..<Int(gap.upperBound * Double(rate)) { samples[index] = 0 }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pieces-\(UUID().uuidString).wav")
        try WAV.encode(PCMBuffer(sampleRate: rate, samples: samples)).write(to: file)
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        return (file, descriptor)
    }

    static let decoders: [any AudioFileDecoder] = [WAVAndMP3Decoder(), MediaDecoder()]

    @Test("650 s go in three pieces, the first cut in the pause near five minutes", arguments: [0, 1])
    func pieces(decoder: Int) throws {
        let (file, descriptor) = try Self.recording(seconds: 650, gap: 288...292)
        defer {
            close(descriptor)
            try? FileManager.default.removeItem(at: file)
        }
        let transcriber = CapturingTranscriber()
        let engine = TranscriptionEngine(transcriber: transcriber, decoder: Self.decoders[decoder])
        let transcript = try engine.transcribe(descriptor: descriptor, maximumSeconds: 7200, options: .init())
        let lengths = transcriber.heard.map(\.samples.count)
        #expect(lengths.count == 3, "\(lengths)")
        #expect(lengths.reduce(0, +) == 650 * Self.rate)
        #expect(lengths.allSatisfy { $0 <= TranscriptionEngine.pieceSeconds * Self.rate }, "\(lengths)")
        let firstCut = Double(lengths[0]) / Double(Self.rate)
        #expect((288...292).contains(firstCut), "cut at \(firstCut) s")
        #expect(transcriber.heard.allSatisfy { $0.sampleRate == Self.rate })
        #expect(transcript.text == "heard heard heard" && transcript.duration == 650)
    }

    @Test("expected phrases are one answer: the whole recording goes in one piece")
    func expectedPhrasesWhole() throws {
        let (file, descriptor) = try Self.recording(seconds: 320)
        defer {
            close(descriptor)
            try? FileManager.default.removeItem(at: file)
        }
        let transcriber = CapturingTranscriber()
        let engine = TranscriptionEngine(transcriber: transcriber)
        _ = try engine.transcribe(
            descriptor: descriptor, maximumSeconds: 7200, options: TranscriptionOptions(expectedPhrases: ["yes"]))
        #expect(transcriber.heard.map(\.samples.count) == [320 * Self.rate])
    }

    @Test("past the limit or under 0.01 s is refused before the transcriber hears anything", arguments: [0, 1])
    func refusals(decoder: Int) throws {
        let transcriber = CapturingTranscriber()
        let engine = TranscriptionEngine(transcriber: transcriber, decoder: Self.decoders[decoder])
        let (long, longDescriptor) = try Self.recording(seconds: 12)
        let (short, shortDescriptor) = try Self.recording(seconds: 0.005)
        defer {
            close(longDescriptor)
            close(shortDescriptor)
            try? FileManager.default.removeItem(at: long)
            try? FileManager.default.removeItem(at: short)
        }
        #expect(throws: AudioFileError.tooLong(limitSeconds: 10)) {
            try engine.transcribe(descriptor: longDescriptor, maximumSeconds: 10, options: .init())
        }
        #expect(throws: AudioFileError.tooShort) {
            try engine.transcribe(descriptor: shortDescriptor, maximumSeconds: 10, options: .init())
        }
        #expect(transcriber.heard.isEmpty)
    }

    @Test("raw PCM fed in chunks goes in the same three pieces, while it is fed")
    func chunks() throws {
        let (file, descriptor) = try Self.recording(seconds: 650, gap: 288...292)
        close(descriptor)
        defer { try? FileManager.default.removeItem(at: file) }
        let samples = try WAV.decode(Data(contentsOf: file)).samples
        let transcriber = CapturingTranscriber()
        var stream = TranscriptionEngine(transcriber: transcriber).stream(.transcription, options: .init())
        let chunk = Self.rate / 10
        for start in stride(from: 0, to: samples.count, by: chunk) {
            let end = min(samples.count, start + chunk)
            var bytes = [UInt8](repeating: 0, count: (end - start) * 2)
            for index in start..<end {
                let sample = UInt16(bitPattern: samples[index])
                bytes[(index - start) * 2] = UInt8(sample & 0xFF)
                bytes[(index - start) * 2 + 1] = UInt8(sample >> 8)
            }
            try stream.append(bytes)
            // A piece is transcribed as soon as audio beyond it arrives, not at the end.
            if end == 310 * Self.rate { #expect(transcriber.heard.count == 1) }
        }
        #expect(transcriber.heard.count == 2, "the rest waits for the end")
        let transcript = try stream.finish()
        let lengths = transcriber.heard.map(\.samples.count)
        #expect(lengths.count == 3 && lengths.reduce(0, +) == 650 * Self.rate, "\(lengths)")
        #expect((288...292).contains(Double(lengths[0]) / Double(Self.rate)), "\(lengths)")
        #expect(transcript.text == "heard heard heard" && transcript.duration == 650)
    }

    @Test("a file that fits in one piece is decoded once; a longer one is counted first", arguments: [0, 1])
    func decodes(decoder: Int) throws {
        for (seconds, decodes) in [(20.0, 1), (310.0, 2)] {
            let (file, descriptor) = try Self.recording(seconds: seconds)
            defer {
                close(descriptor)
                try? FileManager.default.removeItem(at: file)
            }
            let counting = CountingDecoder(Self.decoders[decoder])
            let engine = TranscriptionEngine(transcriber: CapturingTranscriber(), decoder: counting)
            let transcript = try engine.transcribe(descriptor: descriptor, maximumSeconds: 7200, options: .init())
            #expect(transcript.duration == seconds)
            #expect(counting.streams.withLock { $0 } == decodes, "\(seconds) s")
        }
    }
}

/// A decoder that counts the streams it opens: how many times a file is decoded.
private struct CountingDecoder: AudioFileDecoder {
    let decoder: any AudioFileDecoder
    let streams = Locked(0)

    init(_ decoder: any AudioFileDecoder) { self.decoder = decoder }

    func decode(file: URL, sampleRate: Int, maximumSeconds: Int?) throws -> PCMBuffer {
        try decoder.decode(file: file, sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }

    func stream(descriptor: Int32, sampleRate: Int, maximumSeconds: Int?) throws -> any DecodedAudioStream {
        streams.withLock { $0 += 1 }
        return try decoder.stream(descriptor: descriptor, sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }
}
