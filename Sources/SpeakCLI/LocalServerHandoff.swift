import FoundationEssentials
import Glibc
import SpeakKit

/// A neural voice on the command line: its model takes a second or two to load, so when a local
/// `speak serve` is running (``LocalSocket``) the text goes to it and its streamed PCM is played;
/// otherwise, or if it refuses before any audio, `local` synthesises here.
package struct LocalServerHandoff: Synthesizer {
    package let local: any Synthesizer
    package let socketPath: String?

    package init(local: any Synthesizer, socketPath: String? = LocalSocket.path) {
        self.local = local
        self.socketPath = socketPath
    }

    package var features: SynthesisFeatures { local.features }

    package func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
        onChunk: (PCMChunk) throws -> Void
    ) throws {
        // SSML would be read out as text: the OpenAI route has no flag for it.
        if let socketPath, !options.ssml,
            let reply = try? ServedReply(socketPath: socketPath, text: text, options: options)
        {
            var delivered = false
            do {
                try reply.stream(volume: options.volume) { chunk in
                    delivered = true
                    try onChunk(chunk)
                }
                return
            } catch let error where !delivered && !(error is PlaybackInterrupted) {
                // Nothing played yet: synthesising here repeats nothing.
            }
        }
        try local.synthesize(text, options: options, onProgress: onProgress, onChunk: onChunk)
    }

    package func problems(with voices: [Voice]) -> [String: String] { local.problems(with: voices) }
    package func speakers(of voice: Voice) -> [String] { local.speakers(of: voice) }
    package func voice(_ voice: Voice, speakingAs speaker: String) -> Voice? { local.voice(voice, speakingAs: speaker) }
    package func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? {
        try local.phonemes(of: text, options: options, ipa: ipa)
    }
}

/// One `POST /v1/audio/speech` over the local socket, its answer read as it streams. WAV, not
/// OpenAI's 24 kHz `pcm`: its header carries the model's own rate, so a file or the device gets the
/// same samples as when this command synthesises them itself.
/// A minimal HTTP/1.1 client: one request, `Connection: close`, a chunked or sized body.
struct ServedReply {
    struct Refused: Error { let reason: String }
    private let descriptor: Int32
    private var buffered: [UInt8]
    private let chunked: Bool
    private let length: Int?

    /// Connects and sends the request; throws unless the answer is a 200 of WAV.
    init(socketPath: String, text: String, options: SpeechOptions) throws {
        let descriptor = try Self.connect(socketPath)
        self.descriptor = descriptor
        do {
            var body: [String: JSONValue] = [
                "model": .string("speak-1"), "input": .string(text), "voice": .string(options.voice.name),
                "response_format": .string("wav"),
            ]
            if options.effectiveRate != options.voice.rate {
                body["speed"] = .number(Double(options.effectiveRate) / Double(options.voice.rate))
            }
            let json = Data(JSONValue.object(body).canonical.utf8)
            let head =
                "POST /v1/audio/speech HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(json.count)\r\nConnection: close\r\n\r\n"
            try (Data(head.utf8) + json).withUnsafeBytes { bytes in
                try SystemCall.writeAll("send", bytes) { pointer, count, _ in
                    send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
                }
            }
            // The status line and headers.
            var received: [UInt8] = []
            let end = Array("\r\n\r\n".utf8)
            var headEnd: Int?
            while headEnd == nil {
                guard received.count < 64 << 10, let more = try Self.receive(descriptor) else {
                    throw Refused(reason: "no answer")
                }
                received += more
                headEnd = received.firstRange(of: end)?.upperBound
            }
            let lines = String(decoding: received[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
            let status = lines.first?.split(separator: " ").dropFirst().first
            guard status == "200" else { throw Refused(reason: lines.first ?? "") }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
            }
            guard headers["content-type"]?.hasPrefix("audio/wav") == true else { throw Refused(reason: "not WAV") }
            chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") == true
            length = try headers["content-length"].map { text in
                guard let length = Int(text), length >= 0 else { throw Refused(reason: "bad Content-Length") }
                return length
            }
            buffered = Array(received[headEnd!...])
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Hands the samples to `onChunk` as they arrive, scaled by `volume` (100 is as made).
    func stream(volume: Int, _ onChunk: (PCMChunk) throws -> Void) throws {
        defer { close(descriptor) }
        var body = BodyReader(buffered: buffered, chunked: chunked, remaining: length)
        var header: [UInt8] = []
        var sampleRate: Int?
        var odd: UInt8?
        while let bytes = try body.next(from: { try Self.receive(descriptor) }) {
            var data = bytes
            if sampleRate == nil {
                // speak's streamed WAV: a 44-byte header whose sizes say "to the end", then samples.
                header += data
                guard header.count >= 44 else { continue }
                guard let format = try? WAV.format(of: Data(header.prefix(44))), format.encoding == 1,
                    format.channels == 1, format.bitsPerSample == 16, format.samples.lowerBound == 44
                else { throw Refused(reason: "not 16-bit mono WAV") }
                sampleRate = format.sampleRate
                data = Array(header[44...])
            }
            if let first = odd {
                data.insert(first, at: 0)
                odd = nil
            }
            if data.count % 2 == 1 { odd = data.removeLast() }
            var samples = [Int16](repeating: 0, count: data.count / 2)
            for index in samples.indices {
                let sample = Int(Int16(bitPattern: UInt16(data[2 * index]) | UInt16(data[2 * index + 1]) << 8))
                samples[index] = volume == 100 ? Int16(sample) : Int16(clamping: sample * volume / 100)
            }
            guard !samples.isEmpty else { continue }
            try samples.withUnsafeBufferPointer { try onChunk(PCMChunk(samples: $0, sampleRate: sampleRate!)) }
        }
        guard body.complete, sampleRate != nil else { throw Refused(reason: "the reply was cut off") }
    }

    private static func connect(_ path: String) throws -> Int32 {
        let descriptor = Socket.connect(unixPath: path)
        guard descriptor >= 0 else {
            if errno == ENAMETOOLONG { throw Refused(reason: "path too long") }
            throw SystemCallError("connect")
        }
        // A server that stops answering mid-reply must not hang the command for ever.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Only a server of this user's hears the text, wherever $SPEAK_SOCKET points.
        guard Socket.peerUser(descriptor) == getuid() else {
            close(descriptor)
            throw Refused(reason: "the socket's server is another user's")
        }
        return descriptor
    }

    /// The next bytes from the socket; `nil` at its end.
    private static func receive(_ descriptor: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let count = try buffer.withUnsafeMutableBytes { bytes in
            try SystemCall.retrying("recv") { recv(descriptor, bytes.baseAddress, bytes.count, 0) }
        }
        return count == 0 ? nil : Array(buffer[..<count])
    }
}

/// An HTTP body as it arrives: chunked transfer encoding undone, or so many bytes, or to the end.
package struct BodyReader {
    var buffered: [UInt8]
    let chunked: Bool
    /// Bytes of the body (or, when chunked, of the current chunk) still to come.
    var remaining: Int?
    package private(set) var complete = false
    private var inChunk = false

    package init(buffered: [UInt8], chunked: Bool, remaining: Int?) {
        self.buffered = buffered
        self.chunked = chunked
        self.remaining = chunked ? nil : remaining
        complete = !chunked && remaining == 0
    }

    /// The next piece of the body, reading more with `receive` as needed; `nil` once it is over.
    package mutating func next(from receive: () throws -> [UInt8]?) throws -> [UInt8]? {
        while !complete {
            if chunked && !inChunk {
                // A size line: hex digits, optional extensions, CRLF; 0 ends the body.
                guard let lineEnd = buffered.firstRange(of: Array("\r\n".utf8)) else {
                    guard buffered.count < 1024, let more = try receive() else { return nil }
                    buffered += more
                    continue
                }
                let line = String(decoding: buffered[..<lineEnd.lowerBound], as: UTF8.self)
                buffered.removeSubrange(..<lineEnd.upperBound)
                let digits = line.split(separator: ";").first?.trimmingSpaces() ?? ""
                // A size the reply could never have (negative, or past 1 GiB) is a broken reply.
                guard let size = Int(digits, radix: 16), (0...(1 << 30)).contains(size) else { return nil }
                if size == 0 {
                    complete = true
                    return nil
                }
                (remaining, inChunk) = (size + 2, true)  // the chunk's own CRLF follows its data
                continue
            }
            if buffered.isEmpty {
                guard let more = try receive() else {
                    complete = !chunked && remaining == nil
                    return nil
                }
                buffered = more
            }
            let take = min(buffered.count, remaining ?? buffered.count)
            var piece = Array(buffered[..<take])
            buffered.removeFirst(take)
            if let left = remaining {
                remaining = left - take
                if chunked {
                    // Drop what of the trailing CRLF is in this piece.
                    let crlf = max(0, 2 - (left - take))
                    piece.removeLast(min(crlf, piece.count))
                    if remaining == 0 { inChunk = false }
                } else if remaining == 0 {
                    complete = true
                }
            }
            if !piece.isEmpty { return piece }
        }
        return nil
    }
}
