import FoundationEssentials
import Glibc

/// The frame protocol between whoever wants speech and whoever synthesises it: `speak serve` and
/// its `speak worker` processes (``WorkerPool``, ``SynthesisWorker``), and a `speak` command and a
/// running `speak serve` on the local socket (the hand-off). It carries a ``SynthesisRequest``
/// whole, so every ``SpeechOptions`` field arrives as it was given.
///
/// The client writes one request as a line of JSON, which begins with `{` (``requestMarker``): a
/// socket that also serves HTTP tells the two apart by the first byte. The answer is frames:
/// `start` with the sample rate, `data` frames of PCM as it is made, then `end`; or `error` with a
/// one-line message at any point. A frame is 1 byte type, 4 bytes big-endian payload length, the
/// payload.
/// Where frames go: a pipe or socket written straight away (``WorkerFrame/Writer``), or a socket
/// written as it takes them (``WorkerFrame/SocketFrames``).
package protocol FrameSink {
    func write(_ type: WorkerFrame, _ payload: Data) throws
}

package enum WorkerFrame: UInt8 {
    case start = 0x53  // "S": the reply's sample rate, 4 bytes big-endian
    case data = 0x44  // "D": PCM, 16-bit little-endian mono
    case end = 0x45  // "E": the reply is complete
    case error = 0x21  // "!": the reply failed; the payload is a one-line UTF-8 message

    /// The first byte of every request.
    package static let requestMarker = UInt8(ascii: "{")
    static let headerBytes = 5
    /// Larger than any frame a ``ReplyWriter`` makes (``ReplyWriter/frameBytes`` or an error line).
    static let maximumPayloadBytes = 1 << 20

    /// Writes whole frames straight to a descriptor: one write per frame and no user-space buffer,
    /// so each frame reaches the reader as soon as it is written. A socket is sent to with
    /// `MSG_NOSIGNAL`, so a reader that went away is a failed write, not a SIGPIPE.
    package struct Writer: FrameSink, Sendable {
        package let descriptor: Int32

        package init(descriptor: Int32) { self.descriptor = descriptor }

        package func write(_ type: WorkerFrame, _ payload: Data) throws {
            let frame = WorkerFrame.frame(type, payload)
            try frame.withUnsafeBytes { bytes in
                try SystemCall.writeAll("send", bytes) { pointer, count, _ in
                    let sent = send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
                    return sent < 0 && errno == ENOTSOCK ? Glibc.write(descriptor, pointer, count) : sent
                }
            }
        }
    }

    /// Frames handed to a ``SocketWriter`` without waiting: the hand-off's server side, whose
    /// reply is made by a model or worker other clients share. Its owner waits for the rest once
    /// the reply is made.
    package struct SocketFrames: FrameSink {
        package let socket: SocketWriter

        package init(_ socket: SocketWriter) { self.socket = socket }

        package func write(_ type: WorkerFrame, _ payload: Data) throws {
            try socket.send(WorkerFrame.frame(type, payload), waiting: false)
        }
    }

    /// 1 byte type, 4 bytes big-endian payload length, the payload.
    static func frame(_ type: WorkerFrame, _ payload: Data) -> Data {
        var frame = Data([type.rawValue])
        withUnsafeBytes(of: UInt32(payload.count).bigEndian) { frame.append(contentsOf: $0) }
        return frame + payload
    }

    /// One reply's frames, from PCM as it is made: `start` once, the samples gathered into frames
    /// of ``frameBytes``, then `end`; or `error`.
    package struct ReplyWriter {
        /// Fewer writes and wake-ups than a frame per chunk; espeak-ng speaks far faster than real
        /// time, so a frame (0.4 s of speech at 22 kHz) fills almost at once.
        static let frameBytes = 16384

        private let frames: any FrameSink
        private var pending = Data()
        private var started = false

        package init(_ frames: any FrameSink) { self.frames = frames }

        /// Sends the sample rate, once, before any PCM: ahead of the first chunk when it is known.
        package mutating func start(sampleRate: Int) throws {
            guard !started else { return }
            started = true
            try frames.write(.start, withUnsafeBytes(of: UInt32(sampleRate).bigEndian) { Data($0) })
        }

        /// The chunk's samples; all chunks of a reply come at one rate.
        package mutating func append(_ chunk: PCMChunk) throws {
            try start(sampleRate: chunk.sampleRate)
            #if _endian(little)
                pending.append(contentsOf: UnsafeRawBufferPointer(chunk.samples))
            #else
                for sample in chunk.samples {
                    withUnsafeBytes(of: sample.littleEndian) { pending.append(contentsOf: $0) }
                }
            #endif
            guard pending.count >= Self.frameBytes else { return }
            var from = pending.startIndex
            while pending.endIndex - from >= Self.frameBytes {
                try frames.write(.data, Data(pending[from..<from + Self.frameBytes]))
                from += Self.frameBytes
            }
            pending = Data(pending[from...])
        }

        /// Sends the PCM gathered so far now, for a caller whose chunks are large already (a
        /// neural voice's sentence), whose reader should not wait for the next one.
        package mutating func flush() throws {
            if !pending.isEmpty { try frames.write(.data, pending) }
            pending = Data()
        }

        /// The rest of the PCM, then `end`.
        package mutating func finish() throws {
            try flush()
            try frames.write(.end, Data())
        }

        /// `error` with `message` on one line, in place of the rest of the reply.
        package mutating func fail(message: String) throws {
            pending = Data()
            let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
            try frames.write(.error, Data(line.utf8.prefix(WorkerFrame.maximumPayloadBytes)))
        }

        package mutating func fail(_ error: any Error) throws { try fail(message: String(describing: error)) }
    }

    /// The other end's `error` frame: its one-line message. The stream is ready for another request.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package let message: String
        package var description: String { message }
    }

    /// A stream that breaks the protocol, so nothing more on it can be trusted: what it sent.
    package struct Malformed: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// Reads one reply's frames from `descriptor` up to its `end`, handing its PCM to `onChunk` as
    /// it arrives. Throws ``Failure`` for an `error` frame, ``Malformed`` for a broken stream, a
    /// `SystemCallError` when reading fails or the input ends (`EPIPE`), and what `onChunk` throws.
    package static func receiveReply(from descriptor: Int32, onChunk: (PCMChunk) throws -> Void) throws {
        var sampleRate = 0
        while true {
            let (type, payload) = try readFrame(from: descriptor)
            switch type {
            case .start:
                sampleRate = payload.count == 4 ? payload.reduce(0) { $0 << 8 | Int($1) } : 0
                guard sampleRate > 0 else { throw Malformed(description: "sent a start frame without a sample rate") }
            case .data:
                guard sampleRate > 0, payload.count % 2 == 0 else {
                    throw Malformed(description: "sent PCM before its sample rate, or half a sample")
                }
                let samples = payload.withUnsafeBytes { bytes in
                    bytes.bindMemory(to: Int16.self).map { Int16(littleEndian: $0) }
                }
                try samples.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: sampleRate)) }
            case .end:
                return
            case .error:
                throw Failure(message: String(decoding: payload, as: UTF8.self))
            }
        }
    }

    private static func readFrame(from descriptor: Int32) throws -> (WorkerFrame, Data) {
        let header = try read(headerBytes, from: descriptor)
        let length = header[1..<5].reduce(0) { $0 << 8 | Int($1) }
        // A wild length means a broken stream, and must not become a gigabyte allocation.
        guard length <= maximumPayloadBytes else {
            throw Malformed(description: "sent a frame of \(length) bytes; the limit is \(maximumPayloadBytes)")
        }
        guard let type = WorkerFrame(rawValue: header[0]) else {
            throw Malformed(description: "sent a frame of unknown type \(header[0])")
        }
        return (type, try read(length, from: descriptor))
    }

    /// Exactly `count` bytes; end of input is a `SystemCallError` (`EPIPE`).
    private static func read(_ count: Int, from descriptor: Int32) throws -> Data {
        var data = Data(count: count)
        let received = try data.withUnsafeMutableBytes { bytes in
            try SystemCall.readFully("read", into: bytes) { Glibc.read(descriptor, $0, $1) }
        }
        guard received == count else { throw SystemCallError("read", code: EPIPE) }
        return data
    }

    /// Request lines from a descriptor, read with read(2), which tells end of input from an error.
    package struct RequestReader {
        /// A request line longer than the reader takes.
        package struct TooLong: Error, CustomStringConvertible, Sendable {
            package let limit: Int
            package var description: String { "the request is longer than \(limit) bytes" }
        }

        let descriptor: Int32
        let maximumBytes: Int
        private var buffer = Data()

        package init(descriptor: Int32, maximumBytes: Int = .max) {
            self.descriptor = descriptor
            self.maximumBytes = maximumBytes
        }

        /// The next line without its newline; `nil` when the input ends or cannot be read (a
        /// receive timeout).
        package mutating func next() throws(TooLong) -> Data? {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = buffer[buffer.startIndex..<newline]
                    guard line.count <= maximumBytes else { throw TooLong(limit: maximumBytes) }
                    buffer = buffer[(newline + 1)...]
                    return Data(line)
                }
                guard buffer.count <= maximumBytes else { throw TooLong(limit: maximumBytes) }
                let count = (try? SystemCall.retrying("read") { Glibc.read(descriptor, &chunk, chunk.count) }) ?? 0
                guard count > 0 else { return nil }
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }
}

extension SynthesisRequest {
    /// The request as the frame protocol's one line: JSON (JSONEncoder escapes newlines inside
    /// strings) and a newline.
    package func line() throws -> Data {
        try JSONEncoder().encode(self) + [0x0A]
    }

    package init(line: Data) throws {
        self = try JSONDecoder().decode(Self.self, from: line)
    }
}
