import Foundation
import SpeakKit
import SpeakMedia
import Testing

/// What a macOS `say` user types first (issue 33, item 7): its file types and data formats, its
/// embedded commands, its voice names. Run on the light `speak`, which hands FFmpeg's formats to
/// `speak-full`.
extension CommandLineTests {
    /// A file `speak` wrote, and the audio in it as the project's FFmpeg decoder reads it back.
    func written(_ name: String, _ arguments: [String], text: String = "Written, not spoken.") throws
        -> (data: Data, pcm: PCMBuffer)
    {
        let output = scratch.appendingPathComponent(name)
        let result = try Speak.run(arguments + ["-o", output.path, text])
        try #require(result.status == 0, "\(name): \(result.stderr)")
        let data = try Data(contentsOf: output)
        return (data, try MediaDecoder.decode(data, sampleRate: 22050))
    }

    @Test(
        "-o writes say's other file types by their extension: the container's magic, and audio FFmpeg reads back",
        arguments: [
            ("m4a", 4, "ftypM4A"), ("aiff", 8, "AIFF"), ("aif", 8, "AIFF"), ("caf", 0, "caff"), ("ogg", 28, "OpusHead"),
            ("opus", 28, "OpusHead"), ("flac", 0, "fLaC"),
        ])
    func writesSayFileTypes(pathExtension: String, offset: Int, magic: String) throws {
        let (data, pcm) = try written("reply.\(pathExtension)", [])
        #expect(data.dropFirst(offset).starts(with: Data(magic.utf8)), "\(data.prefix(40).map { $0 })")
        #expect(pcm.duration > 0.8 && pcm.duration < 3, "\(pcm.duration) s")
        #expect(pcm.rms > 0.01, "silent: \(pcm.rms)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.hasPrefix(".speak-") })
    }

    @Test("--data-format: say's PCM layouts with a rate, and the codecs a file type holds")
    func dataFormats() throws {
        // WAV: the rate is at byte 24, bits per sample at 34; float is format 3 (or 3 in the extensible format's GUID).
        let (float, floatPCM) = try written("float.wav", ["--data-format", "LEF32@16000"])
        #expect(float[24..<28].elementsEqual([0x80, 0x3E, 0, 0]) && float[34] == 32, "\(float.prefix(48).map { $0 })")
        #expect(float[20] == 3 || float[20] == 0xFE && float[44] == 3, "\(float.prefix(48).map { $0 })")
        #expect(floatPCM.duration > 0.8)
        let (alac, _) = try written("lossless.m4a", ["--data-format", "alac"])
        #expect(alac.firstRange(of: Data("alac".utf8)) != nil)
        let (vorbis, _) = try written("reply.ogg", ["--data-format", "vorbis"])
        #expect(vorbis.firstRange(of: Data("\u{01}vorbis".utf8)) != nil)
        let (big, _) = try written("big.caf", ["--data-format", "BEI24"])
        #expect(big.starts(with: Data("caff".utf8)))
        let (mp3, _) = try written("low.mp3", ["--data-format", "mp3@16000"])
        #expect(try PCMBuffer(audio: mp3).sampleRate == 16000)
        // A type named by --file-format, into a pipe: MP4 in fragments (its first box's size is ASCII).
        let piped = try Speak.run(["--file-format", "m4af", "-o", "-", "Piped."])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.utf8.dropFirst(4).starts(with: "ftyp".utf8) && piped.stdout.contains("moof"))
    }

    @Test("--file-format=? lists the file types as say does; --data-format=? what the type named holds")
    func listsFormats() throws {
        let types = try Speak.run(["--file-format=?"])
        #expect(types.status == 0, "\(types.stderr)")
        let lines = types.stdout.split(separator: "\n")
        for (identifier, pathExtension) in [
            ("mp3", ".mp3"), ("WAVE", ".wav"), ("AIFF", ".aiff"), ("caff", ".caf"), ("m4af", ".m4a"), ("OggS", ".ogg"),
            ("Opus", ".opus"), ("flac", ".flac"),
        ] {
            #expect(
                lines.contains { $0.hasPrefix(identifier + " ") && $0.contains(pathExtension) && $0.contains("[") },
                "\(identifier): \(types.stdout)")
        }
        let wave = try Speak.run(["--file-format=WAVE", "--data-format=?"])
        #expect(wave.status == 0, "\(wave.stderr)")
        for name in ["LEI16", "LEF32", "ulaw"] { #expect(wave.stdout.contains(name), "\(wave.stdout)") }
        let m4a = try Speak.run(["-o", "reply.m4a", "--data-format=?"])
        #expect(m4a.stdout.contains("aac") && m4a.stdout.contains("alac") && !m4a.stdout.contains("LEI16"))
    }

    @Test(
        "say's format flags with a value speak cannot use: one line, exit 64",
        arguments: [
            (["--data-format", "LEI12", "-o", "{dir}/a.wav"], "unknown data format 'LEI12'"),
            (["--data-format", "aac", "-o", "{dir}/a.wav"], "WAVE files do not hold aac"),
            (["--data-format", "aac@12345", "-o", "{dir}/a.m4a"], "aac sample rate must be"),
            (["--file-format", "WAVX", "-o", "{dir}/a"], "unknown file format 'WAVX'"),
            (["--quality", "200", "-o", "{dir}/a.wav"], "quality must be a whole number from 0 to 127"),
            (["--channels", "2", "-o", "{dir}/a.wav"], "speak writes mono audio"),
            (["--file-format", "AIFF", "-o", "-"], "cannot be streamed into a pipe"),
        ])
    func refusedFormats(arguments: [String], message: String) throws {
        let result = try Speak.run(arguments.map { $0.replacingOccurrences(of: "{dir}", with: scratch.path) } + ["Hi"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("speak: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("--quality (say's converter quality) is taken, not mistaken for --quiet")
    func quality() throws {
        let (_, pcm) = try written("quality.wav", ["--quality", "127"])
        #expect(pcm.duration > 0.8)
    }

    /// The peak sample, as a fraction of full scale.
    static func peak(_ pcm: PCMBuffer) -> Double {
        Double(pcm.samples.map { abs(Int($0)) }.max() ?? 0) / 32767
    }

    /// The near-silence (under -50 dB) before the first sound, in seconds.
    static func leadingSilence(_ pcm: PCMBuffer) -> Double {
        Double(pcm.samples.firstIndex { abs(Int($0)) >= 100 } ?? pcm.samples.count) / Double(pcm.sampleRate)
    }

    /// The longest run of near-silence (under -50 dB), in seconds.
    static func longestSilence(_ pcm: PCMBuffer) -> Double {
        var (longest, run) = (0, 0)
        for sample in pcm.samples {
            run = abs(Int(sample)) < 100 ? run + 1 : 0
            longest = max(longest, run)
        }
        return Double(longest) / Double(pcm.sampleRate)
    }

    @Test("embedded commands: [[slnc]] adds silence, [[rate]] speeds up, [[volm]] softens, [[emph]] is not read")
    func embeddedCommands() throws {
        let text = "The quick brown fox jumps over the lazy dog."
        let plain = try written("plain.wav", [], text: text).pcm
        let silence = try written("slnc.wav", [], text: "The quick brown fox [[slnc 1000]] jumps over the lazy dog.")
        #expect(silence.pcm.duration - plain.duration > 0.7, "\(silence.pcm.duration) against \(plain.duration)")
        #expect(Self.longestSilence(silence.pcm) > 0.9, "\(Self.longestSilence(silence.pcm)) s")
        #expect(Self.longestSilence(plain) < 0.5, "\(Self.longestSilence(plain)) s")
        // At the very start too, where espeak-ng alone drops a break: the speech begins a second late.
        let leading = try written("leading.wav", [], text: "[[slnc 1000]] " + text).pcm
        #expect(Self.leadingSilence(leading) - Self.leadingSilence(plain) > 0.9, "\(Self.leadingSilence(leading)) s")
        let fast = try written("rate.wav", [], text: "[[rate 350]] " + text)
        #expect(fast.pcm.duration < plain.duration * 0.75, "\(fast.pcm.duration) against \(plain.duration)")
        let soft = try written("volm.wav", [], text: "[[volm 0.3]] " + text)
        #expect(Self.peak(soft.pcm) < Self.peak(plain) * 0.5, "\(Self.peak(soft.pcm)) against \(Self.peak(plain))")
        let stressed = "The [[emph +]] quick brown fox jumps over the lazy dog."
        let emphasis = try written("emph.wav", [], text: stressed)
        #expect(abs(emphasis.pcm.duration - plain.duration) < 0.6, "\(emphasis.pcm.duration) against \(plain.duration)")
        // --no-embedded reads them as text, as speak did before.
        let literal = try written("literal.wav", ["--no-embedded"], text: stressed)
        #expect(literal.pcm.duration - plain.duration > 0.6, "\(literal.pcm.duration) against \(plain.duration)")
    }

    @Test(
        "a macOS voice name speaks with the closest voice here, and says so on stderr",
        arguments: [("Alex", "default"), ("Samantha", "ava"), ("Daniel", "oliver"), ("Thomas", "amelie")])
    func macVoiceNames(mac: String, closest: String) throws {
        let output = scratch.appendingPathComponent("\(mac).wav")
        let result = try Speak.run(["-v", mac, "-o", output.path, "Bonjour, hello."])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("'\(mac)' is a macOS voice") && result.stderr.contains("'\(closest)'"))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        let same = scratch.appendingPathComponent("\(closest).wav")
        #expect(try Speak.run(["-v", closest, "-o", same.path, "Bonjour, hello."]).status == 0)
        #expect(try Data(contentsOf: output) == Data(contentsOf: same))
    }

    @Test("Anna is a voice here too: no note; a Mac voice of a language no voice speaks is refused")
    func macVoiceNamesOther() throws {
        let anna = try Speak.run(["-v", "Anna", "-o", scratch.appendingPathComponent("anna.wav").path, "Hallo."])
        #expect(anna.status == 0 && anna.stderr.isEmpty, "\(anna.stderr)")
        let kyoko = try Speak.run(["-v", "Kyoko", "-o", scratch.appendingPathComponent("kyoko.wav").path, "Hi."])
        #expect(kyoko.status == 64 && kyoko.stderr.contains("no voice here speaks ja"), "\(kyoko.stderr)")
    }
}
