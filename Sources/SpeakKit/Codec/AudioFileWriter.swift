import FoundationEssentials
import Glibc

/// Writes mono PCM to a WAV or MP3 file as it arrives, so a long text never sits in memory whole.
/// `finish()` completes a WAV header by rewriting the file's start.
public final class AudioFileWriter {
    private let file: Int32
    private let format: AudioFileFormat
    private let sampleRate: Int
    private let encoder: MP3Encoder?
    private var written = 0
    /// A regular file is synced at the end; a FIFO or a device (`-o /dev/stdout`) cannot be.
    private let isRegularFile: Bool
    /// A FIFO cannot seek back to complete the WAV header: it gets a stream's header instead.
    private let isSeekable: Bool

    /// `file` (a descriptor, left open) must be empty and open for writing; a file that cannot seek
    /// (a FIFO) gets a WAV header whose sizes say "to the end", as a stream's do. Failed writes
    /// throw ``SystemCallError``.
    public init(file: Int32, format: AudioFileFormat, sampleRate: Int, mp3: MP3Settings = .init()) throws {
        self.file = file
        self.format = format
        self.sampleRate = sampleRate
        var status = stat()
        isRegularFile = fstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        isSeekable = lseek(file, 0, SEEK_CUR) >= 0
        switch format {
        case .wav:
            encoder = nil
            try write(WAV.header(sampleRate: sampleRate, dataBytes: isSeekable ? 0 : Int(UInt32.max)))
        case .mp3:
            encoder = try MP3Encoder(inputRate: sampleRate, settings: mp3)
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if let encoder {
            try write(encoder.encode(Array(samples)))
        } else {
            try write(UnsafeRawBufferPointer(samples))
        }
        written += samples.count
    }

    public func finish() throws {
        if let encoder {
            try write(encoder.finish())
        } else if isSeekable {
            try SystemCall.retrying("lseek") { lseek(file, 0, SEEK_SET) }
            try write(WAV.header(sampleRate: sampleRate, dataBytes: written * 2))
        }
        if isRegularFile { try SystemCall.retrying("fsync") { fsync(file) } }
    }

    private func write(_ bytes: Data) throws { try bytes.withUnsafeBytes { try write($0) } }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        try SystemCall.writeAll("write", bytes) { pointer, count, _ in Glibc.write(file, pointer, count) }
    }
}
