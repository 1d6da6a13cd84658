import Foundation
import SpeakKit

/// Why the next event could not be read. Some leave the stream where the next event starts (the
/// connection goes on); the rest lose the framing, and the connection is closed after the error.
public enum WyomingReadError: Error, Equatable, CustomStringConvertible {
    case headerTooLong(limit: Int)
    case badHeader(String)
    case tooLarge(field: String, length: Int, limit: Int)
    /// A length that is not a whole number: what follows cannot be skipped.
    case badLength(field: String)
    case badData(String)
    /// The connection ended inside an event.
    case truncated
    case idle
    /// The event was not whole within its time (``WyomingLimits/headerSeconds`` and the rate after).
    case tooSlow(seconds: Int)
    case system(String)

    /// Whether the next event can still be read after this one.
    public var keepsConnection: Bool {
        switch self {
        case .badHeader, .badData: true
        default: false
        }
    }

    public var code: String {
        switch self {
        case .headerTooLong: "header-too-long"
        case .badHeader: "bad-header"
        case .tooLarge: "too-large"
        case .badLength: "bad-length"
        case .badData: "bad-data"
        case .truncated: "truncated"
        case .idle: "idle"
        case .tooSlow: "too-slow"
        case .system: "io"
        }
    }

    public var description: String {
        switch self {
        case .headerTooLong(let limit): "the header line is longer than \(limit) bytes"
        case .badHeader(let reason): "bad header line: \(reason)"
        case .tooLarge(let field, let length, let limit): "\(field) \(length) is more than the limit of \(limit) bytes"
        case .badLength(let field): "\(field) is not a whole number of bytes"
        case .badData(let reason): "bad data: \(reason)"
        case .truncated: "the connection ended inside an event"
        case .idle: "nothing was sent for too long"
        case .tooSlow(let seconds): "the event was not whole within \(seconds) s of its first byte"
        case .system(let message): message
        }
    }
}

/// Reads Wyoming events from a socket (or any descriptor), within ``WyomingLimits``.
public struct EventReader {
    public let descriptor: Int32
    public let limits: WyomingLimits
    private var buffer: [UInt8] = []
    /// Where the unread bytes in `buffer` start.
    private var start = 0
    /// When the event being read must be whole (set by its first byte), in ``monotonicSeconds()``.
    private var deadline: Double?
    private var eventStarted = 0.0
    /// Told when this connection waits for its client and when it is busy, so the server can pick
    /// a connection to give way when all slots are taken.
    var activity: ConnectionActivity?
    /// A request is open (a stream, a recording): its connection keeps its slot while it waits.
    var inRequest = false

    public init(descriptor: Int32, limits: WyomingLimits = WyomingLimits()) {
        self.descriptor = descriptor
        self.limits = limits
    }

    /// The next event, or `nil` when the peer closed the connection between events.
    public mutating func next() throws(WyomingReadError) -> WyomingEvent? {
        guard let line = try readLine() else { return nil }
        let header: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONValue(parsing: line) else {
                throw WyomingReadError.badHeader("not a JSON object")
            }
            header = object
        } catch let error as WyomingReadError {
            throw error
        } catch {
            throw .badHeader("not JSON")
        }
        // The lengths first, so the framing holds even when the rest of the header is wrong.
        let dataLength = try length(header, "data_length", limit: limits.dataBytes)
        let payloadLength = try length(header, "payload_length", limit: limits.payloadBytes)
        deadline = eventStarted + limits.eventSeconds(after: dataLength + payloadLength)
        let dataBytes = try readExactly(dataLength)
        let payload = try readExactly(payloadLength)
        guard case .string(let type)? = header["type"], !type.isEmpty else { throw .badHeader("no \"type\"") }
        var data: [String: JSONValue] = [:]
        switch header["data"] {
        case .object(let inline)?: data = inline
        case nil, .null?: break
        default: throw .badData("\"data\" is not a JSON object")
        }
        if dataLength > 0 {
            guard case .object(let more)? = try? JSONValue(parsing: dataBytes) else {
                throw .badData("the \(dataLength) bytes of data are not a JSON object")
            }
            data.merge(more) { _, new in new }
        }
        return WyomingEvent(type, data, payload: payload)
    }

    private func length(_ header: [String: JSONValue], _ field: String, limit: Int) throws(WyomingReadError) -> Int {
        switch header[field] {
        case nil, .null?: return 0
        case .number(let value)? where value >= 0 && value == value.rounded():
            guard value <= Double(limit) else {
                throw .tooLarge(field: field, length: Int(min(value, 1e15)), limit: limit)
            }
            return Int(value)
        default:
            throw .badLength(field: field)
        }
    }

    /// The next line without its newline; `nil` at a clean end of the stream.
    private mutating func readLine() throws(WyomingReadError) -> ArraySlice<UInt8>? {
        // Bytes after `start` already searched; an offset, since `fill` may move the bytes.
        var searched = 0
        deadline = nil
        if buffer.count > start { startEvent() }
        while true {
            if let newline = buffer[(start + searched)...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            searched = buffer.count - start
            if searched >= limits.headerBytes { throw .headerTooLong(limit: limits.headerBytes) }
            if try fill() == 0 {
                if buffer.count == start { return nil }
                throw .truncated
            }
            if deadline == nil { startEvent() }
        }
    }

    /// The event's first byte is here: from now it has ``WyomingLimits/headerSeconds`` for its header.
    private mutating func startEvent() {
        eventStarted = monotonicSeconds()
        deadline = eventStarted + limits.headerSeconds
    }

    private mutating func readExactly(_ count: Int) throws(WyomingReadError) -> [UInt8] {
        guard count > 0 else { return [] }
        while buffer.count - start < count {
            if try fill() == 0 { throw .truncated }
        }
        let bytes = Array(buffer[start..<start + count])
        start += count
        return bytes
    }

    /// Reads what the descriptor has into the buffer; 0 at the end of the stream. Waits until the
    /// event's deadline, or between events for ``WyomingLimits/idleSeconds``.
    private mutating func fill() throws(WyomingReadError) -> Int {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        try waitForInput()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 {
                buffer.append(contentsOf: chunk[..<count])
                return count
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw .idle
            case ECONNRESET: return 0
            default: throw .system("read: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Returns once the descriptor has something to read (or its end), telling ``activity`` that
    /// the connection waits meanwhile; throws when the deadline, or the idle time, passes first.
    private mutating func waitForInput() throws(WyomingReadError) {
        let waitingSince = monotonicSeconds()
        let until = deadline ?? waitingSince + limits.idleSeconds
        if !inRequest { activity?.waiting(since: waitingSince) }
        defer { activity?.busy() }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let left = until - monotonicSeconds()
            let ready = left > 0 ? poll(&poller, 1, Int32(min(left * 1000, 86_400_000).rounded(.up))) : 0
            if ready > 0 { return }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw .system("poll: \(String(cString: strerror(errno)))") }
            guard let deadline else { throw .idle }
            throw .tooSlow(seconds: Int((deadline - eventStarted).rounded(.up)))
        }
    }
}

/// Seconds on a clock that only goes forward.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
