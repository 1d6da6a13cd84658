/// How much one client may send at once and how long it may take: bounds on the memory a
/// connection can make us hold and on the time it can hold a slot.
public struct WyomingLimits: Sendable, Equatable {
    /// The JSON header line, newline included.
    public var headerBytes = 64 << 10
    /// The JSON after the header (`data_length`).
    public var dataBytes = 1 << 20
    /// The raw bytes after the data (`payload_length`): one audio chunk.
    public var payloadBytes = 8 << 20
    /// Characters of text to speak, in one `synthesize` or one stream.
    public var textCharacters = 16_384
    /// Seconds of audio to transcribe at once.
    public var audioSeconds = 600
    /// Connections served at once. When all are taken, the one that has waited longest for its
    /// client gives way to a new one; when none waits, the new one is answered `busy` and closed.
    public var connections = 64
    /// Connections from one address; `nil`: half the slots, so one host cannot take them all.
    public var connectionsPerAddress: Int?
    /// A connection that sends nothing between events for this long is closed.
    public var idleSeconds = 300.0
    /// Once an event's first byte has come, its header line must be whole within this time.
    public var headerSeconds = 5.0
    /// …and its data and payload must come at least this fast (bytes a second) after that.
    public var minimumBytesPerSecond = 16 << 10
    /// After the error that ends a request, how long the client's remaining input is read (and
    /// dropped) before the close, so the close is not a reset that could lose the error.
    public var lingerSeconds = 2.0

    public init() {}

    var perAddress: Int { connectionsPerAddress ?? max(1, connections / 2) }

    /// The time an event of `length` bytes after its header may take, header included.
    func eventSeconds(after length: Int) -> Double {
        headerSeconds + Double(length) / Double(max(minimumBytesPerSecond, 1))
    }
}

extension WyomingLimits {
    /// The settings `SPEAK_WYOMING_LIMITS` may change, by the name it uses.
    private enum Setting {
        case seconds(WritableKeyPath<WyomingLimits, Double>)
        case count(WritableKeyPath<WyomingLimits, Int>)
        case optionalCount(WritableKeyPath<WyomingLimits, Int?>)
    }

    private static var settings: [(name: String, setting: Setting)] {
        [
            ("connections", .count(\.connections)), ("per-address", .optionalCount(\.connectionsPerAddress)),
            ("idle-seconds", .seconds(\.idleSeconds)), ("header-seconds", .seconds(\.headerSeconds)),
            ("min-bytes-per-second", .count(\.minimumBytesPerSecond)), ("linger-seconds", .seconds(\.lingerSeconds)),
            ("text-characters", .count(\.textCharacters)), ("audio-seconds", .count(\.audioSeconds)),
        ]
    }

    /// The defaults changed by `NAME=VALUE,…` (`connections=64,per-address=32,header-seconds=5`).
    public init(parsing text: String) throws(WyomingServerError) {
        self.init()
        for item in text.split(separator: ",") where !item.allSatisfy(\.isWhitespace) {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace }
            let names = Self.settings.map(\.name).joined(separator: ", ")
            guard parts.count == 2, let (name, setting) = Self.settings.first(where: { $0.name == parts[0] }) else {
                throw WyomingServerError("'\(item)' is not NAME=VALUE with NAME one of \(names)")
            }
            switch setting {
            case .count(let path): self[keyPath: path] = try Self.count(name, parts[1])
            case .optionalCount(let path): self[keyPath: path] = try Self.count(name, parts[1])
            case .seconds(let path):
                guard let value = Double(parts[1]), value > 0, value.isFinite else {
                    throw WyomingServerError("\(name) must be a number of seconds above 0, not '\(parts[1])'")
                }
                self[keyPath: path] = value
            }
        }
        guard perAddress <= connections else {
            throw WyomingServerError("per-address (\(perAddress)) cannot be more than connections (\(connections))")
        }
    }

    private static func count(_ name: String, _ text: String) throws(WyomingServerError) -> Int {
        guard let value = Int(text), value > 0 else {
            throw WyomingServerError("\(name) must be a whole number above 0, not '\(text)'")
        }
        return value
    }
}
