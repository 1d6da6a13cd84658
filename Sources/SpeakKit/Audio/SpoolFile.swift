import Foundation

/// A WAV file written as it records, valid at every moment: samples are appended first and the
/// header's sizes are rewritten after them (every `headerInterval` samples and at the end), so the
/// header never claims more than is on disk. A kill leaves a playable file missing at most the
/// last interval from its declared length (and our reader takes only what the header declares).
/// The file is held with `flock` while open, which is how `Spool.pending` knows it is in use.
final class SpoolFile {
    let url: URL
    let sampleRate: Int
    private let descriptor: Int32
    private(set) var sampleCount = 0
    private var samplesInHeader = 0
    private let headerInterval: Int

    init(url: URL, sampleRate: Int) throws(RecorderError) {
        self.url = url
        self.sampleRate = sampleRate
        headerInterval = sampleRate / 2
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create", url) }
        flock(descriptor, LOCK_EX)
        do throws(RecorderError) {
            try write(WAV.header(sampleRate: sampleRate, dataBytes: 0), at: 0)
        } catch {
            // `deinit` closes the descriptor: the object is whole when this throws.
            unlink(url.path)
            throw error
        }
    }

    deinit {
        // Unlock explicitly: a child being spawned right now holds a copy of the descriptor until
        // its exec, and the lock belongs to the open file, so closing ours alone would not free it.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    var bytes: Int { 44 + sampleCount * 2 }

    func append(_ samples: UnsafeBufferPointer<Int16>) throws(RecorderError) {
        try write(UnsafeRawBufferPointer(samples), at: bytes)
        sampleCount += samples.count
        if sampleCount - samplesInHeader >= headerInterval { try updateHeader() }
    }

    /// Writes the final sizes.
    func finish() throws(RecorderError) { try updateHeader() }

    func delete() { unlink(url.path) }

    private func updateHeader() throws(RecorderError) {
        try write(WAV.header(sampleRate: sampleRate, dataBytes: sampleCount * 2), at: 0)
        samplesInHeader = sampleCount
    }

    private func write(_ data: Data, at offset: Int) throws(RecorderError) {
        guard data.withUnsafeBytes({ pwriteAll($0, at: offset) }) else { throw Self.failure("cannot write", url) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(RecorderError) {
        guard pwriteAll(bytes, at: offset) else { throw Self.failure("cannot write", url) }
    }

    /// `pwrite` until all is written; `false` with `errno` set on failure.
    private func pwriteAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }

    private static func failure(_ what: String, _ url: URL) -> RecorderError {
        .recordingFailed("\(what) \(url.path): \(String(cString: strerror(errno)))")
    }
}
