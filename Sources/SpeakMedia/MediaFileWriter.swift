internal import CFFmpeg
import Foundation
import Glibc
import SpeakKit

/// `speak -o reply.m4a` and the other files FFmpeg writes: mono PCM through an FFmpeg encoder and
/// muxer straight into a file descriptor, so a long text never sits in memory whole. A regular
/// file can be sought, so MP4's index and AIFF's sizes are completed at the end. A pipe cannot:
/// MP4 is then written in fragments, and a muxer that must seek is refused in one line.
public final class MediaFileWriter {
    /// What to write, in FFmpeg's names.
    public struct Recipe: Sendable, Equatable {
        public var muxer: String
        /// The encoders that make the codec, the preferred first.
        public var encoders: [String]
        /// The file's rate, or `nil` for the input's own.
        public var sampleRate: Int?
        /// Bits per second for a lossy codec, or `nil` for the encoder's default.
        public var bitRate: Int?

        public init(muxer: String, encoders: [String], sampleRate: Int? = nil, bitRate: Int? = nil) {
            self.muxer = muxer
            self.encoders = encoders
            self.sampleRate = sampleRate
            self.bitRate = bitRate
        }
    }

    /// What this FFmpeg build lacks to write `recipe` ("no libopus encoder"), or `nil` when it has
    /// the muxer and one of the encoders.
    public static func missing(_ recipe: Recipe) -> String? {
        var missing: [String] = []
        if av_guess_format(recipe.muxer, nil, nil) == nil { missing.append("no \(recipe.muxer) muxer") }
        if !recipe.encoders.contains(where: { avcodec_find_encoder_by_name($0) != nil }) {
            missing.append("no \(recipe.encoders.joined(separator: " or ")) encoder")
        }
        return missing.isEmpty ? nil : "FFmpeg here has " + missing.joined(separator: " and ")
    }

    private let output: FileOutput
    private let encoder: FFmpegEncoder

    /// `file` (a descriptor, left open) must be open for writing, at the place the audio goes.
    /// Failed writes throw ``SystemCallError``, as ``AudioFileWriter``'s do.
    public init(file: Int32, recipe: Recipe, inputRate: Int) throws {
        output = FileOutput(file)
        let fragmented = !output.isSeekable && ["ipod", "mp4", "mov"].contains(recipe.muxer)
        let settings = FFmpegEncoder.Recipe(
            encoders: recipe.encoders, muxer: recipe.muxer, sampleRate: recipe.sampleRate.map(Int32.init),
            sampleFormat: nil, bitRate: Int64(recipe.bitRate ?? 0),
            // Without a seek back to write the index, MP4 goes out as a series of one-second fragments.
            muxerOptions: fragmented ? [("movflags", "empty_moov"), ("frag_duration", "1000000")] : [])
        do {
            encoder = try FFmpegEncoder(recipe: settings, inputRate: inputRate, output: output)
        } catch {
            try output.check()
            guard let error = error as? FFmpegError, !output.isSeekable else { throw error }
            throw AudioFileError.unsupported(
                "\(recipe.muxer) needs a file it can seek, not a pipe (\(error.message)): give -o a file name")
        }
        try output.check()
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try checking { _ = try encoder.encode(samples) }
    }

    public func finish() throws {
        try checking { _ = try encoder.finish() }
        if output.isRegularFile { try SystemCall.retrying("fsync") { fsync(output.file) } }
    }

    /// A failed write is the file's (a full disk), not FFmpeg's: it is the error reported.
    private func checking(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            try output.check()
            throw error
        }
        try output.check()
    }
}

/// The muxer's bytes written to a descriptor, and its seeks, relative to where the file stood when
/// the writer began (a shell's standard output may hold something already).
private final class FileOutput: MuxerOutput {
    let file: Int32
    let isRegularFile: Bool
    private let start: off_t
    private let seekable: Bool
    /// The first write that failed: later ones report the same.
    private var failure: SystemCallError?

    init(_ file: Int32) {
        self.file = file
        var status = stat()
        isRegularFile = fstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        start = lseek(file, 0, SEEK_CUR)
        // A file opened to append (`>>`) writes at its end whatever the offset says.
        seekable = start >= 0 && fcntl(file, F_GETFL) & O_APPEND == 0
    }

    override var isSeekable: Bool { seekable }

    override func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let failure { return -failure.code }
        do {
            try SystemCall.writeAll("write", UnsafeRawBufferPointer(bytes)) { pointer, count, _ in
                Glibc.write(file, pointer, count)
            }
            return Int32(bytes.count)
        } catch {
            failure = error
            return -error.code
        }
    }

    override func seek(_ offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 {
            var status = stat()
            guard fstat(file, &status) == 0 else { return -Int64(errno) }
            return Int64(status.st_size) - Int64(start)
        }
        let position: off_t
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: position = lseek(file, start + off_t(offset), SEEK_SET)
        case SEEK_CUR: position = lseek(file, off_t(offset), SEEK_CUR)
        case SEEK_END: position = lseek(file, off_t(offset), SEEK_END)
        default: return -Int64(EINVAL)
        }
        return position < 0 ? -Int64(errno) : Int64(position - start)
    }

    func check() throws(SystemCallError) {
        if let failure { throw failure }
    }
}
