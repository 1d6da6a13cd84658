import FoundationEssentials
import Glibc

/// Writes mono PCM to a WAV or MP3 file as it arrives, so a long text never sits in memory whole.
/// `finish()` completes a WAV header by rewriting the file's start.
public final class AudioFileWriter {
    private let file: Int32
    private let format: ReplyFormat
    private let sampleRate: Int
    private let encoder: MP3Encoder?
    private var written = 0
    /// A regular file is synced at the end; a FIFO or a device (`-o /dev/stdout`) cannot be.
    private let isRegularFile: Bool
    /// A FIFO cannot seek back to complete the WAV header: it gets a stream's header instead.
    private let isSeekable: Bool
    /// Where the header starts: not 0 when the file is a shell's standard output that something
    /// was written to first (`-o -`, `{ echo …; speak -o -; } > out`).
    private let start: off_t

    /// `file` (a descriptor, left open) must be open for writing, at the place the audio goes; a
    /// file that cannot seek (a FIFO) or that only appends (`>>`) gets a WAV header whose sizes
    /// say "to the end", as a stream's do. `format` is one of ``ReplyFormat/builtInFiles``. Failed
    /// writes throw ``SystemCallError``.
    public init(file: Int32, format: ReplyFormat, sampleRate: Int, mp3: MP3Settings = .init()) throws {
        self.file = file
        self.format = format
        self.sampleRate = sampleRate
        var status = stat()
        isRegularFile = fstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        start = lseek(file, 0, SEEK_CUR)
        isSeekable = start >= 0 && fcntl(file, F_GETFL) & O_APPEND == 0
        switch format {
        case .wav:
            encoder = nil
            try write(WAV.header(sampleRate: sampleRate, dataBytes: isSeekable ? 0 : Int(UInt32.max)))
        case .mp3:
            encoder = try MP3Encoder(inputRate: sampleRate, settings: mp3)
        default:
            throw AudioFileError.unsupported("\(format.rawValue) files are FFmpeg's to write")
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
            // pwrite: the file's offset stays at the end, where the next writer to share it goes on.
            let header = WAV.header(sampleRate: sampleRate, dataBytes: written * 2)
            try header.withUnsafeBytes { bytes in
                try SystemCall.writeAll("pwrite", bytes) { pointer, count, done in
                    Glibc.pwrite(file, pointer, count, start + off_t(done))
                }
            }
        }
        if isRegularFile { try SystemCall.retrying("fsync") { fsync(file) } }
    }

    private func write(_ bytes: Data) throws { try bytes.withUnsafeBytes { try write($0) } }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        try SystemCall.writeAll("write", bytes) { pointer, count, _ in Glibc.write(file, pointer, count) }
    }
}
