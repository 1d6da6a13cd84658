import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream

/// `speak record` and `speak ask`: the microphone side of the voice round trip.
enum RecordCommand {
    struct Arguments {
        var output: String?
        var fileFormat: String?
        var options = Recorder.Options()
        var quiet = false
        var live = false
        var json = false
        var language: String?
        var local = Engines.LocalTranscriber()
    }

    static var flags: CommandFlags<Arguments> {
        CommandFlags(
            command: "speak record",
            summary: """
                speak record: record from the microphone (16 kHz mono), into the spool or a file.

                usage: speak record [-o file.wav|file.mp3|-] [--file-format wav|mp3] [--max-seconds N] [--until-silence]
                                    [-a device] [--quiet] [--live [--json] [--language en] [--model base]]

                Stops on Enter or Ctrl-C, after --max-seconds, at 25 MB, or with --until-silence once speech
                was heard and then 1 s of silence. Without -o the recording stays in the spool (its path is
                printed) until `speak transcribe --pending` has transcribed it.
                With --live the words are printed as they are spoken: on a terminal the line is rewritten as
                they settle (the words that may still change dimmed); elsewhere each turn is one line once
                its speaker pauses; --json prints every event. The recording, captioned, leaves the spool.
                """,
            flags: [
                .value(
                    "-o", "--output", value: "FILE",
                    help: "write the recording to FILE (.wav or .mp3; - is standard output)"
                ) {
                    $0.output = $1
                },
                .value("--file-format", value: "wav|mp3", help: "the file type, when FILE's extension does not say") {
                    $0.fileFormat = $1
                },
                .value("-a", "--device", value: "NAME", help: "ALSA capture device (default: default)") {
                    $0.options.device = $1
                },
                .named("--max-seconds", value: "N", help: "stop after N seconds") {
                    $0.options.maxDuration = try seconds($1, $2)
                },
                .switch("--until-silence", help: "stop after 1 s of silence once speech was heard") {
                    $0.options.untilSilence = EndPointer.Settings()
                },
                .switch("-q", "--quiet", help: "no level meter") { $0.quiet = true },
                .switch("--live", help: "print the words as they are spoken, instead of the meter") { $0.live = true },
                .switch(
                    "--json",
                    help: """
                        with --live, one event a line: {"type": "partial"|"final"|"completed"|"speech_started"|
                        "speech_stopped", "text", "start", "end", "time"}, times in seconds
                        """
                ) { $0.json = true },
                .value("--language", value: "CODE", help: "with --live, the language spoken (en, de…)") {
                    $0.language = $1
                },
            ] + TranscriptionFlags.local(\.local))
    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            var parsed = Arguments()
            try flags.scan(arguments, into: &parsed) { _, word in
                throw UsageError("speak record takes no text, not '\(word)' (speak record --help)")
            }
            let (output, options) = (parsed.output, parsed.options)
            let local = parsed.local
            guard
                parsed.live
                    || !parsed.json && parsed.language == nil && local.engine == nil && local.model == nil
                        && local.beamSize == nil
            else { throw UsageError("--json, --language, --engine, --model and --beam-size go with --live") }
            // Refused before recording, not after.
            // WAV without an extension (a FIFO, /dev/stdout), as before; a name it cannot write is refused.
            let format = try output.map { try OutputFile.format(of: $0, named: parsed.fileFormat, unnamed: .wav) }
            let recording: Recording
            if parsed.live {
                let transcription = Engines.transcription(try Engines.transcriber(upstream: nil, local: local))
                let session = try transcription.live(.transcription, options: .init(language: parsed.language))
                recording = try LiveCaptions(session: session, style: .of(json: parsed.json, descriptor: STDOUT_FILENO))
                    .caption(recording: options)
            } else {
                recording = try record(with: options, meter: !parsed.quiet)
            }
            guard let output, let format else {
                // Captioned, it is transcribed: it leaves the spool as `transcribe --pending` would take it.
                if parsed.live { return try options.spool.markDone(recording.url, keep: false) }
                return print(recording.url.path)
            }
            try write(recording, to: output, as: format)
            try options.spool.markDone(recording.url, keep: false)
        }
    }

    /// Records with a live meter on a terminal; Enter or Ctrl-C stops.
    static func record(with options: Recorder.Options, meter: Bool) throws -> Recording {
        let showMeter = meter && isatty(STDERR_FILENO) == 1
        let recorder = Recorder(options: options) { status in
            guard showMeter, case .recording = status.state else { return }
            let bars = Int((min(status.level * 4, 1) * 20).rounded())
            let line =
                String(format: "\r● %5.1f s  [", status.duration) + String(repeating: "#", count: bars)
                + String(repeating: " ", count: 20 - bars) + "]"
            FileHandle.standardError.write(Data(line.utf8))
        }
        return try record(recorder, meter: showMeter)
    }

    /// Records with `recorder` (whose meter is shown on standard error when `meter`); Enter or
    /// Ctrl-C stops.
    static func record(_ recorder: Recorder, meter: Bool) throws -> Recording {
        Interrupt.install()
        // Ctrl-C and a key press stop the recording; what was said is kept.
        Thread.detachNewThread {
            while !Interrupt.requested { usleep(20_000) }
            recorder.stop()
        }
        if isatty(STDIN_FILENO) == 1 {
            Thread.detachNewThread {
                _ = readLine()
                recorder.stop()
            }
        }
        defer { if meter { FileHandle.standardError.write(Data("\n".utf8)) } }
        return try recorder.record()
    }

    /// Writes the recording to `path` as `speak -o` writes (a device or FIFO written in place, a
    /// symlink's target replaced); if that fails, says where the recording is kept.
    static func write(_ recording: Recording, to path: String, as format: ReplyFormat) throws {
        let data = format == .mp3 ? try recording.mp3Data() : try Data(contentsOf: recording.url)
        do {
            let file = try OutputFile(path: path)
            try file.writing {
                try data.withUnsafeBytes { bytes in
                    try SystemCall.writeAll("write", bytes) { pointer, count, _ in
                        Glibc.write(file.descriptor, pointer, count)
                    }
                }
            }
            try file.commit()
        } catch let error as InputError {
            throw InputError(
                code: error.code, message: "\(error.message) (the recording is kept at \(recording.url.path))")
        }
    }

    /// A day: a recording stops at 25 MB (13 minutes) anyway.
    static let maximumSeconds = 86_400.0

    /// `--max-seconds` and `--timeout` (shared with `speak ask`).
    static func seconds(_ text: String, _ flag: String) throws -> Double {
        guard let seconds = Double(text), seconds > 0, seconds <= maximumSeconds else {
            throw UsageError("\(flag) must be a number of seconds up to \(Int(maximumSeconds)), not '\(text)'")
        }
        return seconds
    }
}
