import Foundation
import SpeakCLI
import SpeakKit
import SpeakMedia
import SpeakUpstream

/// The flags that choose who transcribes, shared by `speak transcribe`, `speak ask` and (the
/// local ones) `speak serve`.
enum TranscriptionFlags {
    typealias Upstream = WritableKeyPath<TranscriptionUpstream?, TranscriptionUpstream?>

    /// `--engine` and `--model`: the local recogniser. With `upstream`, `--model` after `--server`
    /// or `--openai` names the upstream's model instead.
    static func local<State>(
        _ local: WritableKeyPath<State, Engines.LocalTranscriber>,
        upstream: WritableKeyPath<State, TranscriptionUpstream?>? = nil
    ) -> [CommandFlags<State>.Flag] {
        [
            .value("--engine", value: "whisper|pocketsphinx", help: "pick the local recogniser") {
                guard Engines.LocalTranscriber.engines.contains($1) else {
                    throw UsageError("--engine is one of \(Engines.LocalTranscriber.engines.joined(separator: ", "))")
                }
                $0[keyPath: local].engine = $1
            },
            .value(
                "--model", value: "NAME|PATH",
                help: """
                    the Whisper model: base, tiny.en, or a ggml-*.bin file (looked up in $SPEAK_MODELS,
                    ~/.local/share/speak/models, PREFIX/share/speak/models)
                    """ + (upstream == nil ? "" : "\nafter --server or --openai: the upstream's model")
            ) { state, name in
                if let upstream, state[keyPath: upstream] != nil {
                    state[keyPath: upstream]?.model = name
                } else {
                    state[keyPath: local].model = name
                }
            },
            .number(
                "--beam-size", value: "N", in: 1...8, what: "--beam-size",
                help: "Whisper's beams: 1 is greedy (the default, or $SPEAK_WHISPER_BEAM_SIZE), 5 as faster-whisper"
            ) { $0[keyPath: local].beamSize = $1 },
        ]
    }

    /// `--server URL`, `--openai URL`, `--key-env NAME`, `--token T`: an upstream transcribes.
    static func upstream<State>(_ upstream: WritableKeyPath<State, TranscriptionUpstream?>)
        -> [CommandFlags<State>.Flag]
    {
        func url(_ api: TranscriptionUpstream.API, _ flag: String) -> CommandFlags<State>.Flag.Apply {
            { state, url in
                guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                    parsed.host?.isEmpty == false
                else { throw UsageError("\(flag) needs an http:// or https:// URL, not '\(url)'") }
                state[keyPath: upstream] = TranscriptionUpstream(api: api, url: url)
                state[keyPath: upstream]?.keyEnvironment = api == .speak ? "SPEAK_TOKEN" : "OPENAI_API_KEY"
            }
        }
        func needsUpstream(_ flag: String, _ state: State) throws {
            guard state[keyPath: upstream] != nil else { throw UsageError("\(flag) goes with --server or --openai") }
        }
        return [
            .value(
                "--server", value: "URL", help: "another speak serve's /api/transcribe (token: $SPEAK_TOKEN)",
                apply: url(.speak, "--server")),
            .value(
                "--openai", value: "URL",
                help: """
                    an OpenAI-compatible API, e.g. https://api.groq.com/openai (default model
                    whisper-large-v3-turbo; key from $OPENAI_API_KEY)
                    """,
                apply: url(.openai, "--openai")),
            .value("--key-env", value: "NAME", help: "the environment variable holding --openai's key") {
                try needsUpstream("--key-env", $0)
                $0[keyPath: upstream]?.keyEnvironment = $1
            },
            .value("--token", value: "T", help: "--server's token (default: $SPEAK_TOKEN)") {
                try needsUpstream("--token", $0)
                // The key is read from the environment, so a literal token goes there.
                setenv("SPEAK_TRANSCRIPTION_TOKEN", $1, 1)
                $0[keyPath: upstream]?.keyEnvironment = "SPEAK_TRANSCRIPTION_TOKEN"
            },
        ]
    }

    /// `--max-duration SECONDS`.
    static func maximumDuration<State>(_ path: WritableKeyPath<State, Int>) -> CommandFlags<State>.Flag {
        .value(
            "--max-duration", value: "SECONDS",
            help: """
                refuse audio that runs past SECONDS (default \(TranscriptionEngine.defaultMaximumSeconds)) with exit 65,
                before any of it is transcribed
                """
        ) {
            guard let seconds = Int($1), seconds > 0 else {
                throw UsageError("--max-duration needs a whole number of seconds, at least 1, not '\($1)'")
            }
            $0[keyPath: path] = seconds
        }
    }
}
