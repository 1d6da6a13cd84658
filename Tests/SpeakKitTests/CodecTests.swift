import Foundation
import Testing

@testable import SpeakKit

@Suite("MP3 and WAV")
struct CodecTests {
    /// Real speech from espeak-ng, as every codec test's input.
    static let speech: PCMBuffer = {
        let synthesizer = try! EspeakSynthesizer.shared()
        var pcm = PCMBuffer(sampleRate: synthesizer.sampleRate)
        try! synthesizer.synthesize(
            "Encode me, then decode me.", options: SpeechOptions(voice: VoiceCatalog.builtInDefault)
        ) {
            pcm.samples += $0
        }
        return pcm
    }()

    @Test("MP3 encode then decode keeps the length and the level", arguments: [(22050, 32), (16000, 32), (24000, 64)])
    func mp3RoundTrip(sampleRate: Int, bitrate: Int) throws {
        let mp3 = try MP3Encoder.encodeFile(
            Self.speech, settings: MP3Settings(sampleRate: sampleRate, bitrate: bitrate))
        let decoded = try MP3Decoder.decode(mp3)
        #expect(decoded.sampleRate == sampleRate)
        // Nothing lost; longer only by LAME's encoder delay (1105 samples) and the last frame's padding.
        let extra = decoded.duration - Self.speech.duration
        #expect(
            extra >= 0 && extra <= Double(1105 + 576) / Double(sampleRate) + 0.005,
            "\(decoded.duration) vs \(Self.speech.duration)")
        #expect(
            abs(decoded.rms - Self.speech.rms) / Self.speech.rms < 0.1, "level \(decoded.rms) vs \(Self.speech.rms)")
        // 32 kbps for the duration, plus at most a frame or two.
        #expect(Double(mp3.count) <= Double(bitrate * 1000 / 8) * Self.speech.duration + 1000)
    }

    @Test("the decoder takes a stream fed in small pieces")
    func mp3FedInPieces() throws {
        let mp3 = try MP3Encoder.encodeFile(Self.speech)
        let whole = try MP3Decoder.decode(mp3)
        let decoder = try MP3Decoder()
        var samples: [Int16] = []
        var offset = 0
        while offset < mp3.count {
            samples += try decoder.feed(mp3.subdata(in: offset..<min(offset + 97, mp3.count)))
            offset += 97
        }
        #expect(decoder.sampleRate == whole.sampleRate)
        #expect(samples == whole.samples)
    }

    @Test("WAV round trip is exact")
    func wavRoundTrip() throws {
        let decoded = try WAV.decode(WAV.encode(Self.speech))
        #expect(decoded == Self.speech)
    }

    @Test("bytes that are not audio are refused, not decoded")
    func notAudio() throws {
        #expect(throws: AudioFileError.self) { try PCMBuffer(audio: Data("just some text, not audio at all\n".utf8)) }
        #expect(throws: AudioFileError.self) { try PCMBuffer(audio: Data()) }
        #expect(throws: AudioFileError.self) { try PCMBuffer(audio: Data("RIFF\0\0\0\0WAVE".utf8)) }
    }

    @Test("SpeakKit writes MP3 and WAV files itself and refuses the formats FFmpeg writes, in words")
    func builtInFiles() throws {
        #expect(ReplyFormat.builtInFiles == [.mp3, .wav])
        #expect(ReplyFormat(builtInFileExtension: "MP3") == .mp3 && ReplyFormat(builtInFileExtension: "ogg") == nil)
        for format in ReplyFormat.allCases where !ReplyFormat.builtInFiles.contains(format) {
            #expect(throws: AudioFileError.unsupported("\(format.rawValue) files are FFmpeg's to write")) {
                try AudioFileWriter(file: -1, format: format, sampleRate: 16000)
            }
            #expect(throws: AudioFileError.self) { try Self.speech.encoded(as: format) }
        }
    }

    @Test("the file writer streams and then completes the header")
    func fileWriter() throws {
        for format in ReplyFormat.builtInFiles {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID()).\(format)")
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            defer { try? FileManager.default.removeItem(at: url) }
            let handle = try FileHandle(forUpdating: url)
            let writer = try AudioFileWriter(
                file: handle.fileDescriptor, format: format, sampleRate: Self.speech.sampleRate)
            for chunk in stride(from: 0, to: Self.speech.samples.count, by: 1000) {
                try Array(Self.speech.samples[chunk..<min(chunk + 1000, Self.speech.samples.count)])
                    .withUnsafeBufferPointer(writer.write)
            }
            try writer.finish()
            try handle.close()
            let decoded = try PCMBuffer(audio: Data(contentsOf: url))
            #expect(
                decoded.duration >= Self.speech.duration && decoded.duration < Self.speech.duration + 0.08, "\(format)")
        }
    }
}
