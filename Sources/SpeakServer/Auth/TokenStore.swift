import Foundation
import SpeakKit

/// A tokens file that cannot be used; the line number is 1-based.
public struct TokenFileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let line: Int?
    public let message: String

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
}

/// The clients' bearer tokens, from a file that holds only their SHA-256 hashes: one
/// `sha256:<64 hex> [name]` per line; `#` starts a comment. A leaked file grants nothing.
///
/// A token presented for the first time is hashed and compared with every stored hash in constant
/// time; once it has matched, it is remembered (up to ``rememberedLimit`` tokens, forgotten on
/// reload), so a client's later requests cost one dictionary lookup instead of a SHA-256. Tokens
/// that match nothing are never remembered, so guessing cannot fill the map.
public final class TokenStore: Sendable {
    private struct Entry {
        var digest: [UInt8]
        var name: String
    }

    private struct State {
        var entries: [Entry] = []
        /// Presented tokens that matched, and the name each matched.
        var remembered: [Substring: String] = [:]
        /// Changed by every reload, so a check against the old entries is not remembered after it.
        var generation = 0
    }

    public let file: URL
    private let state = Locked(State())
    static let rememberedLimit = 1024

    public init(file: URL) throws {
        self.file = file
        try reload()
    }

    /// The line that admits `token` under `name`, for the tokens file.
    public static func hashLine(for token: String, name: String) -> String {
        "sha256:\(SHA256.hex(token))" + (name.isEmpty ? "" : " \(name)")
    }

    /// Reads the file again (on SIGHUP). If it cannot be read or a line is invalid, the tokens in
    /// use stay as they were and the error is thrown.
    public func reload() throws {
        let contents: String
        do {
            contents = try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw TokenFileError(path: file.path, line: nil, message: "cannot read: \(error.localizedDescription)")
        }
        let parsed = try Self.parse(contents, path: file.path)
        state.withLock { state in
            state.entries = parsed
            state.remembered = [:]
            state.generation += 1
        }
    }

    /// How many presented tokens are remembered, for tests.
    var rememberedCount: Int { state.withLock { $0.remembered.count } }

    /// The name of the token in an `Authorization: Bearer <token>` header, or nil.
    ///
    /// Every stored hash is compared in full, whatever matched before, so the time taken does not
    /// tell which token, or how much of one, matched.
    public func authenticate(_ authorizationHeader: String?) -> String? {
        guard let token = Self.bearerToken(authorizationHeader) else { return nil }
        if let known = state.withLock({ $0.remembered[token] }) { return known }
        let (entries, generation) = state.withLock { ($0.entries, $0.generation) }
        let digest = SHA256.digest(token.utf8)
        var name: String?
        for entry in entries where Self.constantTimeEqual(entry.digest, digest) {
            name = name ?? entry.name
        }
        if let name {
            state.withLock { state in
                guard state.generation == generation else { return }
                if state.remembered.count >= Self.rememberedLimit { state.remembered = [:] }
                // Its own copy, not a slice of the header's storage.
                state.remembered[Substring(String(token))] = name
            }
        }
        return name
    }

    /// The token of `Bearer <token>` (scheme in any case, spaces around and between tolerated).
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header else { return nil }
        // The usual form, without allocating: exactly "Bearer " and a token without spaces.
        if header.utf8.count > 7, header.hasPrefix("Bearer "), let last = header.utf8.last, last != 0x20 {
            let token = header.dropFirst(7)
            if !token.utf8.contains(0x20), !token.utf8.contains(0x09) { return token }
        }
        let parts = header.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1]
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private static func parse(_ contents: String, path: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (index, rawLine) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", maxSplits: 1)
            let hex = fields[0]
            guard hex.hasPrefix("sha256:"), let digest = digest(fromHex: hex.dropFirst(7)) else {
                throw TokenFileError(path: path, line: index + 1, message: "expected sha256:<64 hex digits> [name]")
            }
            // A nameless token is known by the start of its hash, in logs and rate limits.
            let name =
                fields.count > 1
                ? fields[1].trimmingCharacters(in: .whitespaces) : "sha256:" + hex.dropFirst(7).prefix(12)
            entries.append(Entry(digest: digest, name: name))
        }
        return entries
    }

    private static func digest(fromHex hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
