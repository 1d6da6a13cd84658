import Foundation

/// Writes mono PCM to a WAV or MP3 file as it arrives, so a long text never sits in memory whole.
/// `finish()` completes a WAV header by rewriting the file's start.
public final class AudioFileWriter {
    private let file: FileHandle
    private let format: AudioFileFormat
    private let sampleRate: Int
    private let encoder: MP3Encoder?
    private var written = 0

    /// `file` must be empty and open for writing and seeking.
    public init(file: FileHandle, format: AudioFileFormat, sampleRate: Int, mp3: MP3Settings = .init()) throws {
        self.file = file
        self.format = format
        self.sampleRate = sampleRate
        switch format {
        case .wav:
            encoder = nil
            try file.write(contentsOf: WAV.header(sampleRate: sampleRate, dataBytes: 0))
        case .mp3:
            encoder = try MP3Encoder(inputRate: sampleRate, settings: mp3)
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if let encoder {
            try file.write(contentsOf: encoder.encode(Array(samples)))
        } else {
            try file.write(contentsOf: Data(buffer: samples))
        }
        written += samples.count
    }

    public func finish() throws {
        if let encoder {
            try file.write(contentsOf: encoder.finish())
        } else {
            try file.seek(toOffset: 0)
            try file.write(contentsOf: WAV.header(sampleRate: sampleRate, dataBytes: written * 2))
        }
        try file.synchronize()
    }
}
