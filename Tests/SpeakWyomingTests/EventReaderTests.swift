import Foundation
import SpeakKit
import Testing

@testable import SpeakWyoming

/// Reads `bytes` through a real pipe, as a socket delivers them.
private func events(from bytes: [UInt8], limits: WyomingLimits = WyomingLimits()) -> [Result<
    WyomingEvent, WyomingReadError
>] {
    // Close-on-exec from the start: a worker process another suite spawns meanwhile would hold
    // a copy of the write end, and the reader would wait for its end-of-file for ever (seen: a
    // hang under ASan).
    // (A socket pair, as a client's connection is; Swift's Glibc module has no pipe2.)
    var descriptors: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0)
    let writer = descriptors[1]
    let thread = Thread {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(writer, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        close(writer)
    }
    thread.start()
    defer { close(descriptors[0]) }
    var reader = EventReader(descriptor: descriptors[0], limits: limits)
    var results: [Result<WyomingEvent, WyomingReadError>] = []
    while true {
        do {
            guard let event = try reader.next() else { return results }
            results.append(.success(event))
        } catch {
            results.append(.failure(error))
            if !error.keepsConnection { return results }
        }
    }
}

@Suite("Wyoming events on the wire")
struct EventReaderTests {
    @Test("an event written is read back with its data and payload")
    func roundTrip() throws {
        let event = WyomingEvent(
            "audio-chunk", ["rate": .number(22050), "text": .string("a \"quoted\"\nline")], payload: [1, 2, 3, 4])
        let read = events(from: event.encoded)
        #expect(read.count == 1)
        #expect(try read[0].get() == event)
        // The header line itself carries no data: it stays one short line whatever the data holds.
        let line = String(decoding: event.encoded.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(line.contains("\"data_length\"") && line.contains("\"payload_length\":4") && !line.contains("quoted"))
        #expect(String(decoding: event.encoded, as: UTF8.self).contains("\"rate\":22050"))
    }

    @Test("thousands of events back to back are all read, across reads that end inside a line")
    func manyEvents() throws {
        let events = (0..<3000).map { WyomingEvent("synthesize-chunk", ["text": .string("word \($0) ")]) }
        let read = EventReaderTests.read(events.flatMap(\.encoded))
        #expect(read.count == 3000)
        #expect(try read.last?.get().string("text") == "word 2999 ")
    }

    static func read(_ bytes: [UInt8]) -> [Result<WyomingEvent, WyomingReadError>] { events(from: bytes) }

    @Test("inline data and data after the header are merged, the later winning")
    func mergedData() throws {
        let body = Array(#"{"text":"after","voice":{"name":"joe"}}"#.utf8)
        let header = #"{"type":"synthesize","data":{"text":"inline","keep":true},"data_length":\#(body.count)}"#
        let read = events(from: Array(header.utf8) + [0x0A] + body)
        let event = try read[0].get()
        #expect(event.type == "synthesize")
        #expect(event.string("text") == "after")
        #expect(event.data["keep"] == .bool(true))
        #expect(event.object("voice")?["name"] == .string("joe"))
    }

    @Test("a header that is not JSON is an error, and the next event is still read")
    func badHeaderKeepsGoing() throws {
        let read = events(from: Array("this is not json\n".utf8) + WyomingEvent("describe").encoded)
        #expect(read.count == 2)
        guard case .failure(.badHeader) = read[0] else {
            Issue.record("expected bad header, got \(read[0])")
            return
        }
        #expect(try read[1].get().type == "describe")
    }

    @Test("an oversized payload or header line is refused before it is read, and ends the connection")
    func limits() {
        var limits = WyomingLimits()
        limits.payloadBytes = 1000
        limits.headerBytes = 100
        let big = events(from: Array(#"{"type":"audio-chunk","payload_length":5000}"#.utf8) + [0x0A], limits: limits)
        #expect(big.count == 1)
        guard case .failure(.tooLarge(field: "payload_length", length: 5000, limit: 1000)) = big[0] else {
            Issue.record("expected too large, got \(big)")
            return
        }
        let long = events(from: Array(repeating: UInt8(ascii: "x"), count: 500), limits: limits)
        guard case .failure(.headerTooLong(limit: 100))? = long.first, long.count == 1 else {
            Issue.record("expected header too long, got \(long)")
            return
        }
    }

    @Test("a connection that ends inside an event is told apart from one that ends between events")
    func truncation() {
        #expect(events(from: []).isEmpty)
        let cut = events(from: Array(#"{"type":"audio-chunk","payload_length":10}"#.utf8) + [0x0A, 1, 2])
        guard case .failure(.truncated)? = cut.first else {
            Issue.record("expected truncated, got \(cut)")
            return
        }
    }
}

@Suite("Sentences cut from streamed text")
struct SentenceSplitterTests {
    @Test("sentences come out as soon as whitespace follows their end, the rest at the finish")
    func streaming() {
        var splitter = SentenceSplitter()
        #expect(splitter.add("Hello there. How").isEmpty == false)
        var again = SentenceSplitter()
        #expect(again.add("Hello there.") == [])
        #expect(again.add(" How are you? I am") == ["Hello there.", "How are you?"])
        #expect(again.add(" fine, e.g. well. It costs 3.5 euros") == ["I am fine, e.g. well."])
        #expect(again.finish() == "It costs 3.5 euros")
        #expect(again.finish() == nil)
    }

    @Test("a long stream of small pieces is scanned once, not again for every piece")
    func linearScan() {
        var splitter = SentenceSplitter()
        for _ in 0..<16_000 { #expect(splitter.add("x").isEmpty) }
        #expect(splitter.add(". Next") == [String(repeating: "x", count: 16_000) + "."])
        // Every piece rescanned what came before: 128 million characters.
        #expect(splitter.scanned < 4 * 16_000, "\(splitter.scanned) characters scanned")
        // What may end a sentence once more comes is scanned again: a full stop, a newline.
        var waiting = SentenceSplitter()
        #expect(waiting.add("Wait.") == [] && waiting.add("\"") == [] && waiting.add(" Go") == ["Wait.\""])
        #expect(waiting.add("\n") == [] && waiting.add("\nOn") == ["Go"])
    }
}
