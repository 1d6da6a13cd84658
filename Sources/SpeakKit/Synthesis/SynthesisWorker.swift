import FoundationEssentials
import Glibc

/// The child side of ``WorkerPool``: `speak worker` runs this loop. espeak-ng is one global
/// instance per process, so a server synthesises on several cores through several such processes.
///
/// Protocol: the server writes one ``SynthesisRequest`` per line of JSON; the worker answers with
/// frames (``WorkerFrame``): `start` with the sample rate, `data` frames of PCM as it is
/// synthesised, then `end`, or `error` with a one-line message. The worker exits when its input
/// ends. The server encodes (``SpeechEngine``), as it does for every engine.
public enum SynthesisWorker {
    /// PCM is gathered into frames of about this size: fewer writes and wake-ups, and at espeak-ng's
    /// ~300x real time a frame (0.4 s of speech) waits only about a millisecond.
    static let frameBytes = 16384

    public static func serve(input: Int32, output: Int32) {
        // A server that went away must come back as a failed write, not kill the worker silently.
        signal(SIGPIPE, SIG_IGN)
        // Frames get their own descriptor and standard output goes to standard error, so a stray
        // print (from a library, say) can never corrupt the frame stream.
        let frames = WorkerFrame.Writer(descriptor: dup(output))
        if output == STDOUT_FILENO { dup2(STDERR_FILENO, STDOUT_FILENO) }
        // Load espeak-ng now, while the server is still starting, not on the first request.
        _ = try? EspeakSynthesizer.shared()

        var lines = LineReader(descriptor: input)
        while let line = lines.next() {
            do {
                try reply(to: line, frames: frames)
                try frames.write(.end)
            } catch {
                let message = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
                // If even this write fails, the server has gone: stop.
                do { try frames.write(.error, Data(message.utf8)) } catch { return }
            }
        }
    }

    private static func reply(to line: Data, frames: WorkerFrame.Writer) throws {
        let request = try JSONDecoder().decode(SynthesisRequest.self, from: line)
        let synthesizer = try EspeakSynthesizer.shared()
        var pending = Data()
        try frames.write(.start, withUnsafeBytes(of: UInt32(synthesizer.sampleRate).bigEndian) { Data($0) })
        try synthesizer.synthesize(request.text, options: request.options) { (samples: UnsafeBufferPointer<Int16>) in
            for sample in samples { withUnsafeBytes(of: sample.littleEndian) { pending.append(contentsOf: $0) } }
            if pending.count >= frameBytes {
                try frames.write(.data, pending)
                pending = Data()
            }
        }
        if !pending.isEmpty { try frames.write(.data, pending) }
    }
}

/// A frame from a worker: 1 byte type, 4 bytes big-endian payload length, the payload.
enum WorkerFrame: UInt8 {
    case start = 0x53  // "S": the reply's sample rate, 4 bytes big-endian
    case data = 0x44  // "D": PCM, 16-bit little-endian mono
    case end = 0x45  // "E": the reply is complete
    case error = 0x21  // "!": the reply failed; the payload is a one-line UTF-8 message

    static let headerBytes = 5
    /// Larger than any frame a worker writes (``SynthesisWorker/frameBytes`` plus an error line).
    static let maximumPayloadBytes = 1 << 20

    /// Writes whole frames straight to a descriptor: one write(2) per frame and no user-space
    /// buffer, so each frame reaches the server as soon as it is written.
    struct Writer {
        let descriptor: Int32

        func write(_ type: WorkerFrame, _ payload: Data = Data()) throws {
            var frame = Data([type.rawValue])
            withUnsafeBytes(of: UInt32(payload.count).bigEndian) { frame.append(contentsOf: $0) }
            frame += payload
            do {
                try frame.withUnsafeBytes { bytes in
                    try SystemCall.writeAll("write", bytes) { pointer, count, _ in
                        Glibc.write(descriptor, pointer, count)
                    }
                }
            } catch let error as SystemCallError {
                throw WorkerError(error)
            }
        }
    }
}

/// Lines from a descriptor, read with read(2), which tells end of input from an error.
private struct LineReader {
    let descriptor: Int32
    private var buffer = Data()

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line without its newline; `nil` at the end of input.
    mutating func next() -> Data? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = buffer[(newline + 1)...]
                return Data(line)
            }
            let count = (try? SystemCall.retrying("read") { read(descriptor, &chunk, chunk.count) }) ?? 0
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
