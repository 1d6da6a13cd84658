import Foundation
import Testing

@testable import SpeakKit

/// Corrupt entries are never served (issue 11, item 6).
@Suite("ReplyCache integrity")
struct ReplyCacheIntegrityTests {
    static func key(_ text: String) -> ReplyKey {
        ReplyKey(engine: "espeak-ng", voice: "en", rate: 175, pitch: 50, format: "mp3", text: text)
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ReplyCacheIntegrity-\(UUID().uuidString)")
    }

    static let body = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })

    /// Ways an entry file goes bad on disk.
    static let damages: [(String, @Sendable (Data) -> Data)] = [
        ("truncated", { $0.prefix($0.count - 1000) }),
        ("empty", { _ in Data() }),
        ("random bytes", { Data((0..<$0.count).map { _ in UInt8.random(in: 0...255) }) }),
        (
            "one byte flipped",
            {
                var data = $0
                data[data.count / 2] ^= 0x40
                return data
            }
        ),
        ("the bare body", { $0.dropFirst(ReplyCache.headerBytes) }),
    ]

    @Test("a damaged entry is a miss, and is deleted", arguments: damages.indices)
    func damaged(index: Int) throws {
        let (name, damage) = Self.damages[index]
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try ReplyCache(directory: directory, maximumBytes: 1 << 20).store(Self.body, for: Self.key("hi"))
        let file = directory.appendingPathComponent(Self.key("hi").digest + ReplyCache.entrySuffix)
        #expect(try ReplyCache.storedReply(at: file) == Self.body)
        try damage(Data(contentsOf: file)).write(to: file)
        // A fresh instance: nothing held in memory, so the file is what it reads.
        let cache = try ReplyCache(directory: directory, maximumBytes: 1 << 20)
        #expect(cache.data(for: Self.key("hi")) == nil, "\(name) entry served")
        #expect(!FileManager.default.fileExists(atPath: file.path), "\(name) entry kept")
        #expect(cache.totalBytes == 0)
        // Stored again, it is served again.
        try cache.store(Self.body, for: Self.key("hi"))
        #expect(try ReplyCache(directory: directory, maximumBytes: 1 << 20).data(for: Self.key("hi")) == Self.body)
    }

    @Test("an entry written as it is produced carries its length and digest")
    func streamedEntry() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try ReplyCache(directory: directory, maximumBytes: 1 << 20)
        let entry = try cache.beginEntry(for: Self.key("streamed"))
        for start in stride(from: 0, to: Self.body.count, by: 700) {
            try entry.append(Self.body[start..<min(start + 700, Self.body.count)])
        }
        try entry.commit()
        let file = directory.appendingPathComponent(Self.key("streamed").digest + ReplyCache.entrySuffix)
        let stored = try Data(contentsOf: file)
        #expect(stored.count == Self.body.count + ReplyCache.headerBytes)
        #expect(stored.prefix(8) == Data("SPKREPL1".utf8))
        #expect(try ReplyCache.storedReply(at: file) == Self.body)
        #expect(cache.totalBytes == Self.body.count)
    }
}
