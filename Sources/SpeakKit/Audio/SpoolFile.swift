import FoundationEssentials
import Glibc

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
        do {
            descriptor = try SystemCall.retrying("open") {
                open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            }
        } catch {
            throw Self.failure("cannot create", url, error)
        }
        _ = try? SystemCall.retrying("flock") { flock(descriptor, LOCK_EX) }
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
        do {
            try data.withUnsafeBytes { try pwriteAll($0, at: offset) }
        } catch {
            throw Self.failure("cannot write", url, error as? SystemCallError ?? SystemCallError("pwrite"))
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(RecorderError) {
        do { try pwriteAll(bytes, at: offset) } catch { throw Self.failure("cannot write", url, error) }
    }

    /// `pwrite` until all is written.
    private func pwriteAll(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemCallError) {
        try SystemCall.writeAll("pwrite", bytes) { pointer, count, done in
            pwrite(descriptor, pointer, count, off_t(offset + done))
        }
    }

    private static func failure(_ what: String, _ url: URL, _ error: SystemCallError) -> RecorderError {
        .recordingFailed("\(what) \(url.path): \(error.message)")
    }
}
