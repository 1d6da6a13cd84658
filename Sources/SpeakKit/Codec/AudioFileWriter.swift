import Foundation

/// Writes mono PCM to a WAV or MP3 file as it arrives, so a long text never sits in memory whole.
/// `finish()` completes a WAV header by rewriting the file's start.
public final class AudioFileWriter {
    private let file: FileHandle
    private let format: AudioFileFormat
    private let sampleRate: Int
    private let encoder: MP3Encoder?
    private var written = 0
    /// A regular file is synced at the end; a FIFO or a device (`-o /dev/stdout`) cannot be.
    private let isRegularFile: Bool
    /// A FIFO cannot seek back to complete the WAV header: it gets a stream's header instead.
    private let isSeekable: Bool

    /// `file` must be empty and open for writing; a file that cannot seek (a FIFO) gets a WAV
    /// header whose sizes say "to the end", as a stream's do.
    public init(file: FileHandle, format: AudioFileFormat, sampleRate: Int, mp3: MP3Settings = .init()) throws {
        self.file = file
        self.format = format
        self.sampleRate = sampleRate
        var status = stat()
        isRegularFile = fstat(file.fileDescriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        isSeekable = lseek(file.fileDescriptor, 0, SEEK_CUR) >= 0
        switch format {
        case .wav:
            encoder = nil
            try file.write(contentsOf: WAV.header(sampleRate: sampleRate, dataBytes: isSeekable ? 0 : Int(UInt32.max)))
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
        } else if isSeekable {
            try file.seek(toOffset: 0)
            try file.write(contentsOf: WAV.header(sampleRate: sampleRate, dataBytes: written * 2))
        }
        if isRegularFile { try file.synchronize() }
    }
}
