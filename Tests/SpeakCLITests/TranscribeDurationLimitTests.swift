import Foundation
import SpeakKit
import Testing

/// `speak transcribe --max-duration`: audio that decodes past the limit is refused as it is decoded,
/// and long audio within it is transcribed a piece at a time.
@Suite("speak transcribe --max-duration")
struct TranscribeDurationLimitTests {
    static let samples = TranscriptionServerTests.samples

    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("duration-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a small FLAC of 10 h of silence is refused with 65 and one line, from a file and from a pipe")
    func tenHoursOfSilence() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("silence.flac")
        let flac = SilentFLAC.make(seconds: 36_000, sampleRate: 16000)
        #expect(flac.count < 1_000_000)
        try flac.write(to: file)
        let result = try Speak.run(["transcribe", file.path])
        #expect(result.status == 65, "\(result.stderr)")
        let reason = "the most speak transcribes (--max-duration allows more)"
        #expect(result.stderr == "speak: \(file.path) is longer than 7200 s, \(reason)\n")
        #expect(result.stdout.isEmpty)
        let piped = try Speak.run(["transcribe", "--max-duration", "3600", "-"], input: flac)
        #expect(piped.status == 65, "\(piped.stderr)")
        #expect(piped.stderr == "speak: - is longer than 3600 s, \(reason)\n")
    }

    @Test("--max-duration lets a 1.7 s file through at 2 s and refuses it at 1 s; bad values are usage errors")
    func limitOnShortFile() throws {
        let file = Self.samples.appendingPathComponent("yes.flac").path
        let through = try Speak.run(["transcribe", "--max-duration", "2", "--expect", "yes please do that|no", file])
        #expect(through.status == 0, "\(through.stderr)")
        #expect(through.stdout == "yes please do that\n")
        let refused = try Speak.run(["transcribe", "--max-duration", "1", "--expect", "yes please do that|no", file])
        #expect(refused.status == 65, "\(refused.stderr)")
        let reason = "the most speak transcribes (--max-duration allows more)"
        #expect(refused.stderr == "speak: \(file) is longer than 1 s, \(reason)\n")
        #expect(refused.stdout.isEmpty)
        for value in ["0", "-5", "1.5", "two"] {
            let bad = try Speak.run(["transcribe", "--max-duration", value, file])
            #expect(bad.status == 64, "\(value): \(bad.stderr)")
            #expect(bad.stderr.contains("--max-duration needs a whole number of seconds"), "\(bad.stderr)")
        }
        let ask = try Speak.run(["ask", "--max-duration", "soon", "Ready?"])
        #expect(ask.status == 64 && ask.stderr.contains("--max-duration needs a whole number"), "\(ask.stderr)")
    }

    @Test("--pending with --max-duration: a recording past it is refused with 65 and stays in the spool")
    func pendingRecordings() throws {
        let dataHome = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dataHome) }
        let spool = Spool(directory: dataHome.appendingPathComponent("speak/spool"))
        try FileManager.default.createDirectory(at: spool.directory, withIntermediateDirectories: true)
        let yes = try WAV.decode(Data(contentsOf: Self.samples.appendingPathComponent("yes.wav")))
        let short = spool.directory.appendingPathComponent("20260101-000000.000-short.wav")
        let long = spool.directory.appendingPathComponent("20260101-000001.000-long.wav")
        try WAV.encode(yes).write(to: short)
        try WAV.encode(
            PCMBuffer(sampleRate: yes.sampleRate, samples: Array(repeating: yes.samples, count: 4).flatMap { $0 })
        )
        .write(to: long)
        let result = try Speak.run(
            ["transcribe", "--pending", "--max-duration", "5", "--expect", "yes please do that|no"],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout == "\(short.path): yes please do that\n", "\(result.stdout)")
        let reason = "the most speak transcribes (--max-duration allows more)"
        #expect(result.stderr == "speak: \(long.path) is longer than 5 s, \(reason)\n")
        #expect(spool.pending.map(\.lastPathComponent) == [long.lastPathComponent])
    }

    @Test("audio longer than one piece is transcribed whole: words after the first five minutes keep their times")
    func pastOnePiece() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let speech = directory.appendingPathComponent("speech.wav").path
        let made = try Subprocess.run(
            "/usr/bin/espeak-ng", ["-s", "150", "-w", speech, "The backup finished. The reports were sent."])
        #expect(made.status == 0, "\(made.stderr)")
        let words = try WAV.decode(Data(contentsOf: URL(fileURLWithPath: speech)))
        // Speech at 0 s and at 310 s, in 330 s: the second lies past the first piece's cut.
        var samples = words.samples
        samples += [Int16](repeating: 0, count: 310 * words.sampleRate - samples.count) + words.samples
        samples += [Int16](repeating: 0, count: 330 * words.sampleRate - samples.count)
        let file = directory.appendingPathComponent("long.wav")
        try WAV.encode(PCMBuffer(sampleRate: words.sampleRate, samples: samples)).write(to: file)
        let result = try Speak.run([
            "transcribe", "--engine", "whisper", "--model", "tiny.en", "--format", "srt", "--progress", file.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let cues = result.stdout.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(cues.count >= 2, "\(result.stdout)")
        // Each cue's start ("N\nHH:MM:SS,mmm --> …") in seconds: the words at 0 s and at 310 s.
        let starts = cues.compactMap { cue -> Double? in
            let time = cue.split(separator: "\n").dropFirst().first?.prefix(12).split(separator: ":") ?? []
            guard time.count == 3 else { return nil }
            let seconds = Double(time[2].replacingOccurrences(of: ",", with: ".")) ?? 0
            return (Double(time[0]) ?? 0) * 3600 + (Double(time[1]) ?? 0) * 60 + seconds
        }
        #expect(starts.first.map { $0 < 1 } == true, "\(result.stdout)")
        #expect(starts.last.map { abs($0 - 310) < 1 } == true, "\(result.stdout)")
        #expect(result.stdout.lowercased().components(separatedBy: "finished").count == 3, "\(result.stdout)")
        let percents = result.stderr.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(file.path), line.hasSuffix("%") else { return nil }
            return Int(line.dropLast().split(separator: " ").last ?? "")
        }
        #expect(percents.last == 100, "\(result.stderr)")
        #expect(percents == percents.sorted(), "\(result.stderr)")
    }
}

/// A FLAC file of silence made by hand (no encoder needed): a STREAMINFO block, then one frame per
/// block whose only subframe is CONSTANT 0, so hours of audio take a few bytes a second.
enum SilentFLAC {
    static let blockSize = 16384

    static func make(seconds: Int, sampleRate: Int) -> Data {
        let total = seconds * sampleRate
        var data = Data("fLaC".utf8)
        data += [0x80, 0, 0, 34]  // the last metadata block: STREAMINFO, 34 bytes
        data += bigEndian(blockSize, bytes: 2) + bigEndian(blockSize, bytes: 2) + Data(count: 6)
        // 20 bits of rate, 3 of channels less one, 5 of bits per sample less one, 36 of samples.
        data += bigEndian(sampleRate << 44 | 15 << 36 | total, bytes: 8) + Data(count: 16)
        var start = 0
        var number = 0
        while start < total {
            let count = min(blockSize, total - start)
            // Fixed block size: the frame's number follows, then the block size less one in 16 bits.
            var frame = Data([0xFF, 0xF8, 0x70, 0x08]) + codedNumber(number) + bigEndian(count - 1, bytes: 2)
            frame.append(crc8(frame))
            frame += [0x00, 0x00, 0x00]  // CONSTANT subframe, its 16-bit sample 0
            frame += bigEndian(Int(crc16(frame)), bytes: 2)
            data += frame
            start += count
            number += 1
        }
        return data
    }

    static func bigEndian(_ value: Int, bytes: Int) -> Data {
        Data((0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    /// FLAC's UTF-8-like coding of a frame number.
    static func codedNumber(_ number: Int) -> Data {
        guard number >= 0x80 else { return Data([UInt8(number)]) }
        var count = 2
        while number >= 1 << (5 * count + 1) { count += 1 }
        var bytes = (0..<count - 1).map { UInt8(0x80 | (number >> (6 * $0)) & 0x3F) }.reversed() as [UInt8]
        bytes.insert(UInt8(truncatingIfNeeded: (0xFF00 >> count) | (number >> (6 * (count - 1)))), at: 0)
        return Data(bytes)
    }

    static func crc8(_ bytes: Data) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    static func crc16(_ bytes: Data) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}
