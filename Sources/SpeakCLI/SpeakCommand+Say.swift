import FoundationEssentials
import Glibc
import SpeakKit

/// What macOS `say` users type: its file and data formats, its voice names.
extension SpeakCommand {
    /// `--file-format=?` (the file types, as say lists them) and `--data-format=?` (what the file
    /// type named, by `--file-format` or `-o`'s extension, holds; else every type's).
    func listFormats() throws {
        // Only speak-full knows what its FFmpeg writes.
        if tool.mediaFiles == nil, tool.handsOver, Handover.fullExecutable() != nil {
            throw NeedsFullExecutable("--file-format=?")
        }
        guard options.dataFormat == "?" else { return print(FormatListing.fileTypes(canWrite: tool.canWrite)) }
        var type: FileType?
        if let name = options.fileFormat, name != "?" {
            guard let named = FileType.named(name) else {
                throw UsageError("unknown file format '\(name)' (speak --file-format=? lists them)")
            }
            type = named
        } else if let output = options.output {
            type = output == "-" ? .wave : FileType.forExtension(FileSystem.pathExtension(of: output))
        }
        print(FormatListing.dataFormats(of: type, canWrite: tool.canWrite))
    }

    /// A file only `speak-full` writes goes to it before anything starts, so nothing is left
    /// half-done by the exec. A format that cannot be told is reported where it always was, after
    /// the output file's own checks.
    func handOverFormatsNotCarried() throws {
        guard let path = options.output, let format = try? outputFormat(of: path) else { return }
        if format.codec == .mp3 { _ = try mp3Settings(for: format) }
        if tool.handsOver, tool.mediaFiles == nil, format.builtIn == nil {
            throw NeedsFullExecutable("writing \(format.summary)")
        }
    }

    func outputFormat(of path: String) throws(UsageError) -> OutputFormat {
        try OutputFormat.of(
            path: path, fileFormat: options.fileFormat, dataFormat: options.dataFormat, bitRate: options.bitRateBPS)
    }

    /// The writer of `format` into `file`, for PCM at `sampleRate`.
    func sink(for format: OutputFormat, file: Int32, sampleRate: Int) throws -> any AudioSink {
        if let builtIn = format.builtIn {
            return try AudioFileWriter(
                file: file, format: builtIn, sampleRate: sampleRate, mp3: mp3Settings(for: format))
        }
        // A pipe, or a file opened to append (`>>`), where a seek back would not land.
        let seekable = lseek(file, 0, SEEK_CUR) >= 0 && fcntl(file, F_GETFL) & O_APPEND == 0
        if format.fileType.needsSeekableFile(for: format.codec), !seekable {
            throw UsageError(
                "\(format.summary) cannot be streamed into a pipe: write it to a file, or pick WAVE, CAF of lpcm, "
                    + "m4af, OggS or flac")
        }
        guard let media = tool.mediaFiles, tool.canWrite(format) else {
            let reason = tool.mediaFiles?.missing(format) ?? "it carries no FFmpeg"
            throw InputError(code: .unavailable, message: "this speak cannot write \(format.summary): \(reason)")
        }
        return try media.open(format, file, sampleRate)
    }

    /// The MP3 settings: `--sample-rate` and `--bitrate`, or say's `--data-format mp3@RATE` and
    /// `--bit-rate` in bits per second.
    private func mp3Settings(for format: OutputFormat) throws(UsageError) -> MP3Settings {
        var bitrate = options.bitrate
        if let bitsPerSecond = options.bitRateBPS {
            guard bitsPerSecond % 1000 == 0, MP3Settings.bitrates.contains(bitsPerSecond / 1000) else {
                let range = MP3Settings.bitrates
                throw UsageError(
                    "MP3 bit rate must be \(range.lowerBound)000 to \(range.upperBound)000 bits per second, "
                        + "not '\(bitsPerSecond)'")
            }
            bitrate = bitsPerSecond / 1000
        }
        return MP3Settings(sampleRate: format.sampleRate ?? options.sampleRate, bitrate: bitrate)
    }

    /// The voice `-v` names; a macOS voice name no voice here has picks the closest here, with a note.
    func voice(in catalog: VoiceCatalog) throws -> Voice {
        let name = try options.voiceName ?? UserSettings.defaultVoiceName()
        if let voice = try? catalog.voice(named: name) { return voice }
        let choice: VoiceChoice
        do {
            choice = try SpeechEngine(catalog: catalog, synthesizers: tool.synthesizers).chooseVoice(
                named: name, refusingUnavailable: false)
        } catch {
            switch error {
            // The catalog's own error, with its suggestions.
            case .unknownVoice(let error): throw error
            default: throw UsageError("\(error) (speak -v '?' lists them)")
            }
        }
        if let note = choice.note, !options.quiet { writeToStandardError("speak: \(note)\n") }
        return choice.voice
    }
}
