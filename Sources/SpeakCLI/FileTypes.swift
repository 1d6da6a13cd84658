import SpeakKit

/// A kind of audio file `-o` writes, named as macOS `say --file-format=?` lists them.
package struct FileType: Sendable, Equatable {
    /// say's four-character name (`WAVE`, `m4af`), or the usual one where say writes none (`mp3`).
    package let identifier: String
    package let title: String
    /// Lowercased, without the dot; the first is the usual one.
    package let extensions: [String]
    /// The data formats it holds, the default first.
    package let codecs: [AudioCodec]
    /// The PCM sample layouts it holds, the default first, when it holds `lpcm`.
    package let layouts: [PCMLayout]

    init(
        _ identifier: String, _ title: String, _ extensions: [String], _ codecs: [AudioCodec], layouts: String = ""
    ) {
        self.identifier = identifier
        self.title = title
        self.extensions = extensions
        self.codecs = codecs
        self.layouts = layouts.split(separator: " ").compactMap { PCMLayout(name: String($0)) }
    }

    /// Every file type, in `--file-format=?`'s order.
    package static let all: [FileType] = [
        FileType("mp3", "MPEG Layer 3", ["mp3"], [.mp3]),
        FileType("WAVE", "WAVE", ["wav"], [.lpcm, .ulaw, .alaw], layouts: "LEI16 LEI24 LEI32 LEF32 UI8"),
        FileType(
            "AIFF", "AIFF", ["aiff", "aif", "aifc"], [.lpcm, .ulaw, .alaw],
            layouts: "BEI16 BEI24 BEI32 I8 BEF32"),
        // FFmpeg's CAF muxer refuses AAC, and its FLAC in CAF reads back with a wrong length.
        FileType(
            "caff", "CAF", ["caf"], [.lpcm, .alac, .opus, .ulaw, .alaw],
            layouts: "LEI16 BEI16 LEI24 BEI24 LEI32 BEI32 I8 LEF32 BEF32"),
        FileType("m4af", "Apple MPEG-4 Audio", ["m4a"], [.aac, .alac]),
        FileType("mp4f", "MPEG-4 Audio", ["mp4"], [.aac, .alac]),
        FileType("adts", "AAC ADTS", ["aac", "adts"], [.aac]),
        FileType(
            "NeXT", "NeXT/Sun", ["au", "snd"], [.lpcm, .ulaw, .alaw], layouts: "BEI16 BEI24 BEI32 I8"),
        FileType("OggS", "Ogg", ["ogg", "oga"], [.opus, .vorbis]),
        FileType("Opus", "Ogg Opus", ["opus"], [.opus]),
        FileType("flac", "FLAC", ["flac"], [.flac]),
    ]

    static let wave = all[1]

    /// The type `--file-format` names: say's name (`WAVE`, `m4af`) or an extension (`wav`, `m4a`).
    static func named(_ name: String) -> FileType? {
        let wanted = name.lowercased()
        return all.first { $0.identifier.lowercased() == wanted } ?? all.first { $0.extensions.contains(wanted) }
    }

    static func forExtension(_ pathExtension: String) -> FileType? {
        all.first { $0.extensions.contains(pathExtension.lowercased()) }
    }

    /// Whether `codec` in it can only be written to a file that seeks (not a pipe): AIFF's header
    /// holds its sizes, and CAF's packet table sizes packets of varying length.
    func needsSeekableFile(for codec: AudioCodec) -> Bool {
        identifier == "AIFF" || identifier == "caff" && [.alac, .opus].contains(codec)
    }

    /// What it holds, as `--data-format` names them: lpcm as its layouts.
    var dataFormatNames: [String] {
        codecs.flatMap { $0 == .lpcm ? layouts.map(\.name) : [$0.rawValue] }
    }

    /// `WAVE  WAVE  (.wav)  [lpcm,ulaw,alaw]`, as say lists a type.
    func listingLine(codecs shown: [AudioCodec]) -> String {
        let names = extensions.map { "." + $0 }.joined(separator: ",")
        return identifier.padded(to: 6) + title.padded(to: 20) + "(\(names))".padded(to: 20)
            + "[\(shown.map(\.rawValue).joined(separator: ","))]"
    }
}

/// The codecs `--data-format` names, as say names them (`lpcm` is PCM, named by its layout).
package enum AudioCodec: String, Sendable, CaseIterable {
    case lpcm, ulaw, alaw, aac, alac, flac, opus, vorbis, mp3

    var title: String {
        switch self {
        case .lpcm: "linear PCM"
        case .ulaw: "µ-law 2:1"
        case .alaw: "A-law 2:1"
        case .aac: "AAC"
        case .alac: "Apple Lossless"
        case .flac: "FLAC"
        case .opus: "Opus"
        case .vorbis: "Vorbis"
        case .mp3: "MP3 (LAME)"
        }
    }

    /// The sample rates it may be written at (`@RATE`), else any from 8,000 to 48,000 Hz.
    var sampleRates: [Int]? {
        switch self {
        case .opus: [8000, 12000, 16000, 24000, 48000]
        case .aac: [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
        case .mp3: MP3Settings.sampleRates
        default: nil
        }
    }

    /// The rate a file gets when none is named: Opus runs at 48 kHz; the rest at the voice's rate.
    var defaultSampleRate: Int? { self == .opus ? 48000 : nil }

    /// Bits per second when `--bit-rate` names none: as the server's replies (AAC, Opus).
    var defaultBitRate: Int? {
        switch self {
        case .aac: 48000
        case .opus: 32000
        case .vorbis: 64000
        default: nil
        }
    }
}

/// How PCM samples are stored, as say's `--data-format` names them: `LEI16` (little-endian 16-bit
/// integers), `BEF32` (big-endian 32-bit floats), `UI8`, `I8`.
package struct PCMLayout: Sendable, Hashable {
    package enum Kind: String {
        case integer = "I"
        case unsigned = "UI"
        case float = "F"
    }
    package let kind: Kind
    package let bits: Int
    /// `nil` for 8-bit samples, which have no byte order.
    package let bigEndian: Bool?

    /// `LEI16`, `BEF32`, `I8`, `UI8`; `I16` without a byte order when `defaultBigEndian` is given.
    init?(name: String, defaultBigEndian: Bool? = nil) {
        var rest = Substring(name.uppercased())
        var bigEndian: Bool? = defaultBigEndian
        if rest.hasPrefix("BE") || rest.hasPrefix("LE") {
            bigEndian = rest.hasPrefix("BE")
            rest = rest.dropFirst(2)
        }
        guard let kind = [Kind.unsigned, .integer, .float].first(where: { rest.hasPrefix($0.rawValue) }),
            let bits = Int(rest.dropFirst(kind.rawValue.count)), [8, 16, 24, 32].contains(bits)
        else { return nil }
        self.kind = kind
        self.bits = bits
        self.bigEndian = bits == 8 ? nil : bigEndian
        if bits != 8 && self.bigEndian == nil { return nil }
    }

    package var name: String {
        (bigEndian.map { $0 ? "BE" : "LE" } ?? "") + kind.rawValue + String(bits)
    }

    var title: String {
        let order = bigEndian.map { $0 ? ", big-endian" : ", little-endian" } ?? ""
        let kind = self.kind == .float ? "float" : self.kind == .unsigned ? "unsigned integer" : "integer"
        return "\(bits)-bit \(kind)\(order)"
    }
}
