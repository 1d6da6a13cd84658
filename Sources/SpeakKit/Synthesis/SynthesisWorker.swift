import Foundation

/// The child side of ``WorkerPool``: `speak worker` runs this loop. espeak-ng is one global
/// instance per process, so a server synthesises on several cores through several such processes.
///
/// Protocol: the server writes one ``SynthesisRequest`` per line of JSON; the worker answers with
/// frames (``WorkerFrame``): `data` frames as the reply is encoded, then `end`, or `error` with a
/// one-line message. The worker exits when its input ends.
public enum SynthesisWorker {
    /// Encoded bytes are gathered into frames of about this size: fewer writes and wake-ups, and at
    /// espeak-ng's ~300x real time a frame of MP3 (a second of speech) waits only milliseconds.
    static let frameBytes = 4096

    public static func serve(input: FileHandle, output: FileHandle) {
        // A server that went away must come back as a failed write, not kill the worker silently.
        signal(SIGPIPE, SIG_IGN)
        // Frames get their own descriptor and standard output goes to standard error, so a stray
        // print (from a library, say) can never corrupt the frame stream.
        let frames = WorkerFrame.Writer(descriptor: dup(output.fileDescriptor))
        if output.fileDescriptor == STDOUT_FILENO { dup2(STDERR_FILENO, STDOUT_FILENO) }
        // Load espeak-ng now, while the server is still starting, not on the first request.
        _ = try? EspeakSynthesizer.shared()

        var lines = LineReader(descriptor: input.fileDescriptor)
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
        let encoder = try ReplyEncoder(format: request.format, inputRate: synthesizer.sampleRate, mp3: request.mp3)
        var pending = Data()
        try synthesizer.synthesize(request.text, options: request.options) { samples in
            pending += try encoder.encode(samples)
            if pending.count >= frameBytes {
                try frames.write(.data, pending)
                pending = Data()
            }
        }
        pending += try encoder.finish()
        if !pending.isEmpty { try frames.write(.data, pending) }
    }
}

/// A frame from a worker: 1 byte type, 4 bytes big-endian payload length, the payload.
enum WorkerFrame: UInt8 {
    case data = 0x44  // "D": encoded audio
    case end = 0x45  // "E": the reply is complete
    case error = 0x21  // "!": the reply failed; the payload is a one-line UTF-8 message

    static let headerBytes = 5

    /// Writes whole frames straight to a descriptor: one write(2) per frame and no user-space
    /// buffer, so each frame reaches the server as soon as it is written.
    struct Writer {
        let descriptor: Int32

        func write(_ type: WorkerFrame, _ payload: Data = Data()) throws {
            var frame = Data([type.rawValue])
            withUnsafeBytes(of: UInt32(payload.count).bigEndian) { frame.append(contentsOf: $0) }
            frame += payload
            try frame.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw WorkerError(systemCall: "write") }
                    offset += written
                }
            }
        }
    }
}

/// Lines from a descriptor, read with read(2): FileHandle's reads cannot tell EOF from an error.
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
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
