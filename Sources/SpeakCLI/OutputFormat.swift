import SpeakKit

/// What `-o` writes: the file type (by `--file-format` or the extension) and the data in it (by
/// `--data-format`, say's `LEI16@22050`, `aac`, `alac`…, else the type's default).
package struct OutputFormat: Sendable, Equatable {
    package let fileType: FileType
    package let codec: AudioCodec
    /// For `lpcm`.
    package let layout: PCMLayout?
    /// `nil`: the voice's own rate.
    package let sampleRate: Int?
    /// Bits per second, for AAC, Opus and Vorbis.
    package let bitRate: Int?

    /// The format to write to `path`: standard output is WAV unless named.
    package static func of(path: String, fileFormat: String?, dataFormat: String?, bitRate: Int? = nil)
        throws(UsageError)
        -> OutputFormat
    {
        let fileType: FileType
        if let fileFormat {
            guard let named = FileType.named(fileFormat) else {
                throw UsageError("unknown file format '\(fileFormat)' (speak --file-format=? lists them)")
            }
            fileType = named
        } else if path == "-" {
            fileType = .wave
        } else {
            let pathExtension = FileSystem.pathExtension(of: path)
            guard let byExtension = FileType.forExtension(pathExtension) else {
                throw UsageError(
                    "cannot tell the format of '\(path)': name it .mp3, .wav, .m4a, .aiff, .caf, .ogg, .opus or "
                        + ".flac, or give --file-format (--file-format=? lists them)")
            }
            fileType = byExtension
        }
        return try OutputFormat(fileType: fileType, dataFormat: dataFormat, bitRate: bitRate)
    }

    init(fileType: FileType, dataFormat: String?, bitRate: Int?) throws(UsageError) {
        self.fileType = fileType
        let (name, rateText) = Self.split(dataFormat ?? "")
        if name.isEmpty {
            codec = fileType.codecs[0]
            layout = fileType.layouts.first
        } else if name.lowercased() == AudioCodec.lpcm.rawValue {
            codec = .lpcm
            layout = fileType.layouts.first
        } else if let named = AudioCodec(rawValue: name.lowercased()) {
            codec = named
            layout = nil
        } else if let named = PCMLayout(name: name, defaultBigEndian: fileType.layouts.first?.bigEndian) {
            codec = .lpcm
            layout = named
        } else {
            throw UsageError("unknown data format '\(dataFormat ?? "")' (speak --data-format=? lists them)")
        }
        guard fileType.codecs.contains(codec), codec != .lpcm || layout.map(fileType.layouts.contains) == true else {
            throw UsageError(
                "\(fileType.identifier) files do not hold \(layout?.name ?? codec.rawValue): they hold "
                    + "\(fileType.dataFormatNames.joined(separator: ", ")) (speak --data-format=? lists them)")
        }
        if let rateText {
            guard let rate = Int(rateText), codec.sampleRates?.contains(rate) ?? (8000...48000).contains(rate) else {
                let allowed =
                    codec.sampleRates.map { $0.map(String.init).joined(separator: ", ") } ?? "8000 to 48000"
                throw UsageError("\(codec.rawValue) sample rate must be \(allowed) (Hz), not '\(rateText)'")
            }
            sampleRate = rate
        } else {
            sampleRate = codec.defaultSampleRate
        }
        if let bitRate, codec.defaultBitRate == nil, codec != .mp3 {
            throw UsageError("--bit-rate \(bitRate) is for AAC, Opus, Vorbis and MP3; \(codec.rawValue) has none")
        }
        self.bitRate = bitRate ?? codec.defaultBitRate
    }

    /// `LEI16@22050` as its name and rate.
    private static func split(_ text: String) -> (String, String?) {
        guard let at = text.firstIndex(of: "@") else { return (text, nil) }
        return (String(text[..<at]), String(text[text.index(after: at)...]))
    }

    /// SpeakKit's own writer for it, which the light `speak` carries: MP3, and WAV of 16-bit
    /// samples at the voice's own rate. Anything else is FFmpeg's (`speak-full`).
    package var builtIn: ReplyFormat? {
        switch codec {
        case .mp3: .mp3
        case .lpcm where fileType == .wave && layout?.name == "LEI16" && sampleRate == nil: .wav
        default: nil
        }
    }

    /// `LEI16 in WAVE`, for messages.
    package var summary: String {
        "\(layout?.name ?? codec.rawValue)\(sampleRate.map { "@\($0)" } ?? "") in \(fileType.identifier)"
    }
}

/// `--file-format=?` and `--data-format=?`: what this speak writes, as say lists it.
package enum FormatListing {
    /// One line a file type this program can write, with the data formats it can put in it.
    package static func fileTypes(canWrite: (OutputFormat) -> Bool) -> String {
        FileType.all.compactMap { type in
            let codecs = type.codecs.filter { codec in writable(type, codec, canWrite: canWrite) }
            return codecs.isEmpty ? nil : type.listingLine(codecs: codecs)
        }.joined(separator: "\n")
    }

    /// The data formats of `type` (else of every type), one a line, the default first.
    package static func dataFormats(of type: FileType?, canWrite: (OutputFormat) -> Bool) -> String {
        let types = type.map { [$0] } ?? FileType.all
        return types.compactMap { type in
            let lines = type.codecs.flatMap { codec -> [String] in
                guard writable(type, codec, canWrite: canWrite) else { return [] }
                guard codec == .lpcm else { return ["  " + codec.rawValue.padded(to: 8) + codec.title] }
                return type.layouts.filter { layout in
                    (try? OutputFormat(fileType: type, dataFormat: layout.name, bitRate: nil)).map(canWrite) ?? false
                }.map { "  " + $0.name.padded(to: 8) + "linear PCM, \($0.title)" }
            }
            guard let first = lines.first?.split(separator: " ").first else { return nil }
            // The light speak writes WAV at the voice's own rate only.
            let example = "\(first)@16000"
            let rated = (try? OutputFormat(fileType: type, dataFormat: example, bitRate: nil)).map(canWrite) ?? false
            let rates = rated ? "; @RATE sets the sample rate, e.g. \(example)" : ""
            let extensions = type.extensions.map { "." + $0 }.joined(separator: ",")
            return (["\(type.identifier) (\(extensions)), the first is the default\(rates):"] + lines)
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }

    private static func writable(_ type: FileType, _ codec: AudioCodec, canWrite: (OutputFormat) -> Bool) -> Bool {
        let names = codec == .lpcm ? type.layouts.map(\.name) : [codec.rawValue]
        return names.contains { name in
            (try? OutputFormat(fileType: type, dataFormat: name, bitRate: nil)).map(canWrite) ?? false
        }
    }
}
