import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakPocketSphinx
import SpeakUpstream

/// `speak ask "Deploy to production?" --expect "yes|no"`: the voice round trip. Speaks the
/// prompt, records the answer until silence, transcribes it, prints it.
enum AskCommand {
    struct Arguments {
        var prompt: [String] = []
        var expect: [String]?
        var json = false
        var keep = false
        var live = false
        var voiceName: String?
        var device = Player.defaultDevice
        var upstream: TranscriptionUpstream?
        var local = Engines.LocalTranscriber()
        var maximumSeconds = TranscriptionEngine.defaultMaximumSeconds
        var recording = Recorder.Options(maxDuration: 15, untilSilence: EndPointer.Settings())
    }

    static var flags: CommandFlags<Arguments> {
        CommandFlags(
            command: "speak ask",
            summary: """
                speak ask: speak a prompt, record the answer until silence, transcribe it, print it.

                usage: speak ask "Deploy to production?" [--expect "yes|no"] [--json] [-v voice] [-a device]
                                 [--mic device] [--max-seconds 15] [--timeout 5] [--keep] [--max-duration SECONDS]
                                 [--live] [--server URL [--token T] | --openai URL [--model M] [--key-env NAME]]
                """,
            flags: [
                .value("--expect", value: "\"A|B\"", help: "the answers expected: recognition picks one of them") {
                    $0.expect = $1.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                },
                .switch("--json", help: "print {\"text\", …} instead of the text") { $0.json = true },
                .switch("--keep", help: "keep the recording in the spool once transcribed") { $0.keep = true },
                .switch(
                    "--live", help: "show the answer's words as they are spoken, on standard error if it is a terminal"
                ) { $0.live = true },
                .value("-v", "--voice", value: "NAME", help: "the voice that asks") { $0.voiceName = $1 },
                .value("-a", "--device", value: "NAME", help: "ALSA playback device") { $0.device = $1 },
                .value("--mic", value: "NAME", help: "ALSA capture device") { $0.recording.device = $1 },
                .named("--max-seconds", value: "N", help: "the longest answer, in seconds (default 15)") {
                    $0.recording.maxDuration = try RecordCommand.seconds($1, $2)
                },
                .named("--timeout", value: "N", help: "how long to wait for speech to start, in seconds") {
                    $0.recording.untilSilence?.noSpeechTimeout = try RecordCommand.seconds($1, $2)
                },
                TranscriptionFlags.maximumDuration(\.maximumSeconds),
            ] + TranscriptionFlags.local(\.local, upstream: \.upstream) + TranscriptionFlags.upstream(\.upstream),
            epilogue: """
                exit codes: 0 answered (printed), 3 no speech heard, 4 not understood, 5 timed out (still
                talking at --max-seconds), 6 transcription failed (the recording is kept: speak transcribe
                --pending retries it), 65 the answer runs past --max-duration, 69 no playback or capture
                device, 75 device busy, 77 permission denied, and Ctrl-C ends it by SIGINT (130) with no
                answer printed, the recording kept in the spool.
                """)
    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            var parsed = Arguments()
            try flags.scan(arguments, into: &parsed) { $0.prompt.append($1) }
            let (prompt, expect, json, keep, voiceName) = (
                parsed.prompt, parsed.expect, parsed.json, parsed.keep, parsed.voiceName
            )
            let (device, upstream, local, maximumSeconds, recording) = (
                parsed.device, parsed.upstream, parsed.local, parsed.maximumSeconds, parsed.recording
            )
            guard !prompt.isEmpty else { throw UsageError("no question to ask: speak ask \"Deploy to production?\"") }
            // The model loads while the prompt plays, so the answer is ready when the speaker stops.
            let loading = Loading { [upstream, local] in
                Engines.transcription(try Engines.transcriber(upstream: upstream, local: local))
            }

            // 1. The prompt, heard whole before the microphone opens.
            let engine = SpeechEngine(
                catalog: try VoiceCatalog.standard(adding: nil), synthesizers: Engines.commandLineSynthesizers())
            let question = SynthesisRequest(
                text: prompt.joined(separator: " "),
                options: SpeechOptions(voice: try engine.voice(named: voiceName ?? UserSettings.defaultVoiceName())))
            Interrupt.install()
            try engine.play(question, on: Player(device: device, shouldStop: { Interrupt.requested }))
            let transcription = try loading.value()
            let transcriber = transcription.transcriber
            if let expect, let checking = transcriber as? any ExpectedPhraseChecking,
                !checking.unknownWords(in: expect).isEmpty
            {
                let unknown = checking.unknownWords(in: expect).joined(separator: ", ")
                throw UsageError("--expect has words the recogniser does not know: \(unknown)")
            }
            // 2. The answer.
            let answer: Recording
            do {
                if parsed.live, isatty(STDERR_FILENO) == 1 {
                    // Only shown: the answer printed is transcribed from the recording, as without.
                    let session = try transcription.live(.transcription, options: .init())
                    answer = try LiveCaptions(session: session, style: .terminal, descriptor: STDERR_FILENO)
                        .caption(recording: recording)
                } else {
                    answer = try RecordCommand.record(with: recording, meter: false)
                }
            } catch {
                // Before anything worth keeping was recorded (it was too short).
                if Interrupt.requested { throw PlaybackInterrupted() }
                throw error
            }
            // Ctrl-C ends the recording as Enter would, but here it means "never mind": no answer is
            // printed, and what was said stays in the spool.
            let interrupted = InputError(
                code: .interrupted,
                message: "interrupted (the answer is kept at \(answer.url.path): speak transcribe --pending)")
            if Interrupt.requested { throw interrupted }
            guard answer.stopReason != .maxDuration else {
                throw InputError(
                    code: .timedOut,
                    message:
                        "timed out: still talking after \(recording.maxDuration ?? 0) s (kept at \(answer.url.path))")
            }
            // 3. Its words; the recording stays in the spool until they are known.
            let transcript: Transcript
            do {
                // Decoded as speak transcribe decodes files: in pieces, refused past --max-duration.
                transcript = try TranscribeCommand.transcript(
                    of: answer.url.path, engine: transcription,
                    options: TranscriptionOptions(expectedPhrases: expect), maximumSeconds: maximumSeconds)
            } catch let error as TranscriptionError {
                if Interrupt.requested { throw interrupted }
                throw InputError(
                    code: .transcriptionFailed,
                    message: "transcription failed\(error.isRetryable ? " (retryable)" : ""): \(error.message); "
                        + "the recording is kept: speak transcribe --pending retries it")
            }
            if Interrupt.requested { throw interrupted }
            try recording.spool.markDone(answer.url, keep: keep)
            guard !transcript.text.isEmpty else {
                throw InputError(code: .notUnderstood, message: "not understood: nothing recognised in the answer")
            }
            if json {
                let object: JSONValue = [
                    "answer": .string(transcript.text), "seconds": .number((answer.duration * 100).rounded() / 100),
                ]
                print(object.canonical)
            } else {
                print(transcript.text)
            }
        }
    }
}

/// A value made on a thread of its own while the caller does something else (loading a model
/// while a prompt plays); `value()` waits for it.
final class Loading<Value: Sendable>: Sendable {
    /// Written once, before `done` is signalled.
    private let result = Locked<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ make: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let made = Result { try make() }
            result.withLock { $0 = made }
            done.signal()
        }
    }

    func value() throws -> Value {
        done.wait()
        done.signal()
        return try result.withLock { $0 }!.get()
    }
}
