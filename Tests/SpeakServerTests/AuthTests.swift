import Foundation
import SpeakKit
import Testing

@testable import SpeakServer

@Suite("Tokens and rate limits")
struct AuthTests {
    /// A tokens file in a fresh temporary directory.
    static func tokensFile(_ contents: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appending(path: "tokens-\(UUID().uuidString)")
        try contents.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("a hash line admits its token, by name, and holds no token")
    func hashLineRoundTrip() throws {
        let line = TokenStore.hashLine(for: "s3cret-token", name: "amina's phone")
        #expect(line == "sha256:\(SHA256.hex("s3cret-token")) amina's phone")
        #expect(!line.contains("s3cret-token"))
        let file = try Self.tokensFile("# clients\n\n\(line)\n\(TokenStore.hashLine(for: "other", name: ""))\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        #expect(store.authenticate("Bearer s3cret-token") == "amina's phone")
        #expect(store.authenticate("bearer  s3cret-token ") == "amina's phone", "the scheme is case-insensitive")
        #expect(
            store.authenticate("Bearer other") == "sha256:\(SHA256.hex("other").prefix(12))",
            "a nameless token goes by its hash")
    }

    @Test(
        "wrong, missing or malformed headers admit nobody",
        arguments: [
            nil, "", "Bearer", "Bearer ", "Bearer wrong", "Basic s3cret", "s3cret", "Bearer s3cret extra",
            "Bearer S3CRET",
            "Bearer \(SHA256.hex("s3cret"))", "Bearer sha256:\(SHA256.hex("s3cret"))",
        ]
    )
    func rejects(header: String?) throws {
        let file = try Self.tokensFile(TokenStore.hashLine(for: "s3cret", name: "a") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try TokenStore(file: file).authenticate(header) == nil)
    }

    @Test("reload picks up new tokens and drops removed ones")
    func reload() throws {
        let file = try Self.tokensFile(TokenStore.hashLine(for: "old", name: "old") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        #expect(store.authenticate("Bearer old") == "old")
        try (TokenStore.hashLine(for: "new", name: "new") + "\n").write(to: file, atomically: true, encoding: .utf8)
        try store.reload()
        #expect(store.authenticate("Bearer new") == "new")
        #expect(store.authenticate("Bearer old") == nil)
    }

    @Test(
        "an invalid or missing file keeps the tokens in use, and says where it is wrong",
        arguments: [
            ("sha256:abc short\n", 1), ("# ok\nplain-token-in-the-file\n", 2),
            ("sha256:\(String(repeating: "g", count: 64))\n", 1),
        ]
    )
    func invalidReloadKeepsOldSet(contents: String, badLine: Int) throws {
        let file = try Self.tokensFile(TokenStore.hashLine(for: "kept", name: "kept") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: TokenFileError.self) { try store.reload() }
        #expect(error?.line == badLine)
        #expect(store.authenticate("Bearer kept") == "kept")
        #expect(throws: TokenFileError.self) { try TokenStore(file: file) }

        try FileManager.default.removeItem(at: file)
        #expect(throws: TokenFileError.self) { try store.reload() }
        #expect(store.authenticate("Bearer kept") == "kept")
    }

    @Test("authentication goes on while the file is reloaded")
    func concurrentReload() async throws {
        let file = try Self.tokensFile(TokenStore.hashLine(for: "t", name: "t") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<200 { try? store.reload() } }
            group.addTask { for _ in 0..<2000 { #expect(store.authenticate("Bearer t") == "t") } }
        }
    }

    @Test("the constant-time comparison compares whole digests")
    func constantTimeEqual() {
        let a = SHA256.digest("a".utf8)
        var b = a
        #expect(TokenStore.constantTimeEqual(a, b))
        b[31] ^= 1
        #expect(!TokenStore.constantTimeEqual(a, b))
        #expect(!TokenStore.constantTimeEqual(a, Array(a.prefix(16))))
    }

    @Test("the rate limiter admits a burst, then says how long to wait, then admits again")
    func rateLimiter() throws {
        let limiter = RateLimiter(requestsPerMinute: 30, burst: 3)
        for _ in 0..<3 { #expect(limiter.admit("a", now: 100) == nil) }
        let wait = try #require(limiter.admit("a", now: 100))
        #expect(wait > 0 && wait <= 2, "one request per 2 s: \(wait)")
        #expect(limiter.admit("b", now: 100) == nil, "each key has its own bucket")
        #expect(limiter.admit("a", now: 100 + wait / 2) != nil)
        #expect(limiter.admit("a", now: 100 + wait) == nil)
        #expect(limiter.admit("a", now: 100 + wait) != nil, "that request took the one token refilled")
        // A long pause refills only up to the burst.
        for _ in 0..<3 { #expect(limiter.admit("a", now: 10_000) == nil) }
        #expect(limiter.admit("a", now: 10_000) != nil)
    }

    @Test("buckets refilled to the full burst are dropped, so many addresses do not pile up; busy ones stay")
    func rateLimiterForgets() throws {
        let limiter = RateLimiter(requestsPerMinute: 60, burst: 2)
        let keys = 16 * RateLimiter.bucketsPerStripe
        for key in 0..<keys { #expect(limiter.admit("anonymous 10.0.\(key / 256).\(key % 256)", now: 0) == nil) }
        #expect(limiter.bucketCount > keys / 2)
        for _ in 0..<2 { #expect(limiter.admit("busy", now: 100) == nil) }
        #expect(limiter.admit("busy", now: 100) != nil)
        // A minute on, every address's bucket is full again: new keys sweep them out.
        for key in 0..<keys { _ = limiter.admit("anonymous 10.1.\(key / 256).\(key % 256)", now: 100) }
        #expect(limiter.bucketCount < keys + keys / 2, "\(limiter.bucketCount) buckets")
        #expect(limiter.admit("busy", now: 100) != nil, "a key still limited keeps its bucket")
    }
}
