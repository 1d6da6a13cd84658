import Foundation
import Synchronization
import Testing

@testable import SpeakKit

@Suite("ReplyCache")
struct ReplyCacheTests {
    /// A fresh directory per test, removed when the test ends.
    private func withDirectory(_ body: (URL) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ReplyCacheTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private func key(_ text: String) -> ReplyKey {
        ReplyKey(engine: "espeak-ng", voice: "en", rate: 175, pitch: 50, format: "mp3", text: text)
    }

    /// Distinct bytes per key and size, so a mix-up between entries cannot go unnoticed.
    private func reply(_ seed: Int, bytes: Int) -> Data {
        Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ 1) })
    }

    /// The names in the directory, temp files included.
    private func listing(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// What the entries' bodies on disk really add up to, whatever any instance estimates.
    private func bytesOnDisk(_ directory: URL) -> Int {
        listing(directory).filter { $0.hasSuffix(ReplyCache.entrySuffix) }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? Int) ?? 0) - ReplyCache.headerBytes
        }
    }

    @Test func roundTrip() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 10_000)
            let stored = reply(1, bytes: 1234)
            #expect(cache.data(for: key("hello")) == nil)
            try cache.store(stored, for: key("hello"))
            #expect(cache.contains(key("hello")))
            #expect(cache.data(for: key("hello")) == stored)
            #expect(!cache.contains(key("other")))
            #expect(cache.totalBytes == 1234)
            #expect(listing(directory) == [key("hello").digest + ReplyCache.entrySuffix])
        }
    }

    @Test func keysAreUnambiguousAndCoverEveryField() {
        let base = ReplyKey(engine: "e", voice: "v", rate: 1, pitch: 2, format: "mp3", text: "t")
        #expect(base.digest.count == 64 && base.digest.allSatisfy(\.isHexDigit))
        #expect(base == ReplyKey(engine: "e", voice: "v", rate: 1, pitch: 2, format: "mp3", text: "t"))
        let changed = [
            ReplyKey(engine: "f", voice: "v", rate: 1, pitch: 2, format: "mp3", text: "t"),
            ReplyKey(engine: "e", voice: "w", rate: 1, pitch: 2, format: "mp3", text: "t"),
            ReplyKey(engine: "e", voice: "v", rate: 3, pitch: 2, format: "mp3", text: "t"),
            ReplyKey(engine: "e", voice: "v", rate: 1, pitch: 3, format: "mp3", text: "t"),
            ReplyKey(engine: "e", voice: "v", rate: 1, pitch: 2, format: "wav", text: "t"),
            ReplyKey(engine: "e", voice: "v", rate: 1, pitch: 2, format: "mp3", text: "u"),
        ]
        #expect(Set(changed.map(\.digest) + [base.digest]).count == 7)
        // Moving a boundary between fields must change the key.
        #expect(
            ReplyKey(engine: "a", voice: "bc", rate: 0, pitch: 0, format: "", text: "").digest
                != ReplyKey(engine: "ab", voice: "c", rate: 0, pitch: 0, format: "", text: "").digest)
        #expect(
            ReplyKey(engine: "", voice: "", rate: 1, pitch: 23, format: "", text: "").digest
                != ReplyKey(engine: "", voice: "", rate: 12, pitch: 3, format: "", text: "").digest)
        #expect(
            ReplyKey(engine: "", voice: "", rate: 0, pitch: 0, format: "mp3:", text: "x").digest
                != ReplyKey(engine: "", voice: "", rate: 0, pitch: 0, format: "mp3", text: ":x").digest)
    }

    @Test("a key is the hash of its bytes, whatever was asked before: the recent keys are matched as bytes")
    func keysDoNotDependOnRecentKeys() {
        // The same letters composed and decomposed: equal as Swift strings, different as bytes. A
        // memo matched by string equality handed the second the first one's digest, so the key (and
        // the cache file) of a text depended on what the process had been asked before.
        let composed = "Ɗan café \(UUID().uuidString)"
        let decomposed = composed.decomposedStringWithCanonicalMapping
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        let first = ReplyKey(engine: "e", voice: "ƙ", rate: 1, pitch: 2, format: "mp3", text: composed)
        let second = ReplyKey(engine: "e", voice: "ƙ", rate: 1, pitch: 2, format: "mp3", text: decomposed)
        var bytes: [UInt8] = []
        for field in ["speak-reply-1", "e", "ƙ", "1", "2", "mp3", decomposed] {
            bytes += Array("\(field.utf8.count):".utf8) + Array(field.utf8)
        }
        #expect(second.digest == SHA256.hex(bytes))
        #expect(first.digest != second.digest)
    }

    @Test("a spoken reply's key tells SSML from plain text, and engines and volume apart")
    func speechKeysCoverSSMLEngineAndVolume() throws {
        let voice = try VoiceCatalog(directories: [VoiceCatalog.shippedDirectory()!]).voice(named: "default")
        let text = "<speak>Wait <break time=\"1s\"/> now.</speak>"
        let plain = ReplyKey(speaking: text, options: SpeechOptions(voice: voice), format: "mp3")
        #expect(plain == ReplyKey(speaking: text, options: SpeechOptions(voice: voice), format: "mp3"))
        #expect(plain != ReplyKey(speaking: text, options: SpeechOptions(voice: voice, ssml: true), format: "mp3"))
        #expect(plain != ReplyKey(speaking: text, options: SpeechOptions(voice: voice, volume: 150), format: "mp3"))
        let elsewhere = Voice(
            name: voice.name, language: voice.language, engine: "upstream", rate: voice.rate, pitch: voice.pitch,
            settings: voice.settings)
        #expect(plain != ReplyKey(speaking: text, options: SpeechOptions(voice: elsewhere), format: "mp3"))
    }

    @Test("an MP3 reply's key names its sample rate and bit rate unless they are the default")
    func speechKeysCoverMP3Settings() throws {
        let engine = SpeechEngine(catalog: VoiceCatalog(voices: []), synthesizers: SynthesizerRegistry([:]))
        let voice = try VoiceCatalog(directories: [VoiceCatalog.shippedDirectory()!]).voice(named: "default")
        func key(_ format: ReplyFormat, _ mp3: MP3Settings) -> ReplyKey {
            engine.cacheKey(
                for: SynthesisRequest(
                    text: "Shared phrase.", options: SpeechOptions(voice: voice), format: format, mp3: mp3))
        }
        let usual = key(.mp3, MP3Settings())
        #expect(key(.mp3, MP3Settings(sampleRate: 16000, bitrate: 64)) != usual)
        #expect(key(.mp3, MP3Settings(sampleRate: 24000)) != usual)
        #expect(key(.mp3, MP3Settings(bitrate: 48)) != usual)
        // Entries stored before this keep their keys; other formats do not use the MP3 settings.
        #expect(usual == ReplyKey(speaking: "Shared phrase.", options: SpeechOptions(voice: voice), format: "mp3"))
        #expect(key(.wav, MP3Settings(sampleRate: 16000, bitrate: 64)) == key(.wav, MP3Settings()))
    }

    @Test func evictsLeastRecentlyUsedFirst() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 300)
            for (seed, text) in ["a", "b", "c"].enumerated() {
                try cache.store(reply(seed, bytes: 100), for: key(text))
            }
            #expect(cache.data(for: key("a")) != nil)  // "a" is now the most recently used; "b" the least
            try cache.store(reply(3, bytes: 100), for: key("d"))
            #expect(cache.contains(key("a")))
            #expect(!cache.contains(key("b")))
            #expect(cache.contains(key("c")) && cache.contains(key("d")))
            try cache.store(reply(4, bytes: 100), for: key("e"))
            #expect(!cache.contains(key("c")))
            #expect(cache.contains(key("a")) && cache.contains(key("d")) && cache.contains(key("e")))
            #expect(cache.totalBytes == 300)
        }
    }

    @Test func boundIsRespected() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 1000)
            for seed in 0..<30 {
                try cache.store(reply(seed, bytes: 50 + seed * 13), for: key("\(seed)"))
                #expect(cache.contains(key("\(seed)")), "the entry just stored stays")
                #expect(cache.totalBytes <= 1000)
                #expect(bytesOnDisk(directory) == cache.totalBytes)
            }
            // One reply larger than the whole bound is not kept, and pushes nothing else out.
            let before = listing(directory)
            try cache.store(reply(99, bytes: 1001), for: key("huge"))
            #expect(!cache.contains(key("huge")))
            #expect(listing(directory) == before)
        }
    }

    @Test func survivesRestart() throws {
        try withDirectory { directory in
            do {
                let cache = try ReplyCache(directory: directory, maximumBytes: 10_000)
                try cache.store(reply(1, bytes: 700), for: key("one"))
                try cache.store(reply(2, bytes: 300), for: key("two"))
            }
            // A dead writer's temp file, and one still being written by a live one.
            let stale = directory.appendingPathComponent(ReplyCache.tempPrefix + "stale").path
            let live = directory.appendingPathComponent(ReplyCache.tempPrefix + "live").path
            #expect(FileManager.default.createFile(atPath: stale, contents: reply(3, bytes: 500)))
            #expect(FileManager.default.createFile(atPath: live, contents: reply(4, bytes: 500)))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: stale)

            let restarted = try ReplyCache(directory: directory, maximumBytes: 10_000)
            #expect(restarted.data(for: key("one")) == reply(1, bytes: 700))
            #expect(restarted.data(for: key("two")) == reply(2, bytes: 300))
            #expect(restarted.totalBytes == 1000)
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: live))
        }
    }

    @Test func restartWithSmallerBoundEvicts() throws {
        try withDirectory { directory in
            do {
                let cache = try ReplyCache(directory: directory, maximumBytes: 10_000)
                for text in ["old", "mid", "new"] { try cache.store(reply(0, bytes: 100), for: key(text)) }
            }
            let smaller = try ReplyCache(directory: directory, maximumBytes: 250)
            #expect(smaller.totalBytes == 200)
            #expect(!smaller.contains(key("old")) && smaller.contains(key("mid")) && smaller.contains(key("new")))
        }
    }

    @Test func streamedEntryAppearsOnlyOnCommit() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 10_000)
            let entry = try cache.beginEntry(for: key("streamed"))
            for seed in 0..<3 {
                try entry.append(reply(seed, bytes: 100))
                #expect(!cache.contains(key("streamed")))
            }
            #expect(cache.totalBytes == 0)
            try entry.commit()
            #expect(
                cache.data(for: key("streamed")) == reply(0, bytes: 100) + reply(1, bytes: 100) + reply(2, bytes: 100))
            #expect(cache.totalBytes == 300)
            #expect(throws: ReplyCacheError.self) { try entry.append(reply(0, bytes: 1)) }
            #expect(listing(directory) == [key("streamed").digest + ReplyCache.entrySuffix])
        }
    }

    @Test func abandonedOrDroppedEntryLeavesNothing() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 10_000)
            let abandoned = try cache.beginEntry(for: key("abandoned"))
            try abandoned.append(reply(1, bytes: 100))
            #expect(listing(directory).count == 1, "the temp file exists while writing")
            abandoned.abandon()
            #expect(throws: ReplyCacheError.self) { try abandoned.commit() }
            do {
                let dropped = try cache.beginEntry(for: key("dropped"))
                try dropped.append(reply(2, bytes: 100))
            }
            #expect(!cache.contains(key("abandoned")) && !cache.contains(key("dropped")))
            #expect(listing(directory).isEmpty)
            #expect(cache.totalBytes == 0)
        }
    }

    @Test func concurrentWritersNeverShowMixedBytes() throws {
        try withDirectory { directory in
            let cache = try ReplyCache(directory: directory, maximumBytes: 20_000)
            let keys = (0..<40).map { key("\($0)") }
            let expected = (0..<40).map { reply($0, bytes: 500 + $0 * 37) }  // about 49 kB in all: eviction runs
            let wrongReads = Atomic<Int>(0)
            let failedStores = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for step in 0..<150 {
                    let index = (thread * 7 + step * 3) % keys.count
                    if let data = cache.data(for: keys[index]) {
                        if data != expected[index] { wrongReads.add(1, ordering: .relaxed) }
                    } else if (try? cache.store(expected[index], for: keys[index])) == nil {
                        failedStores.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(wrongReads.load(ordering: .relaxed) == 0)
            #expect(failedStores.load(ordering: .relaxed) == 0)
            var readable = 0
            for (index, key) in keys.enumerated() {
                guard let data = cache.data(for: key) else { continue }
                readable += 1
                #expect(data == expected[index])
            }
            #expect(readable > 0)
            #expect(cache.totalBytes <= 20_000)
            #expect(bytesOnDisk(directory) == cache.totalBytes)
            #expect(!listing(directory).contains { $0.hasPrefix(ReplyCache.tempPrefix) })
        }
    }

    /// Two instances on one directory stand for the CLI and the server.
    @Test func secondInstanceSeesAndEvictsTheFirstsEntries() throws {
        try withDirectory { directory in
            let first = try ReplyCache(directory: directory, maximumBytes: 300)
            for (seed, text) in ["x", "y", "z"].enumerated() {
                try first.store(reply(seed, bytes: 100), for: key(text))
            }
            let second = try ReplyCache(directory: directory, maximumBytes: 300)
            #expect(second.totalBytes == 300)
            #expect(second.data(for: key("y")) == reply(1, bytes: 100))
            #expect(first.data(for: key("x")) != nil)  // recency travels through the file: "z" is now the oldest
            try second.store(reply(3, bytes: 100), for: key("w"))
            #expect(first.data(for: key("w")) == reply(3, bytes: 100))
            #expect(!first.contains(key("z")))
            #expect(first.contains(key("x")) && first.contains(key("y")))
        }
    }
}
