import Foundation
import SpeakCLI
import SpeakKit
import SpeakPiper
import SpeakPocketSphinx
import SpeakServer
import SpeakUpstream
import SpeakWhisper

/// Every engine speak-full carries, registered here and only here (the light `speak` keeps its own
/// list in Sources/speak/Engines.swift): adding an engine is a line in this file, and no front end
/// changes, as each engine describes itself (``Transcriber/about``, ``Synthesizer/speakers(of:)``).
enum Engines {
    /// The synthesizers, by the names voice files use. espeak-ng runs in this process, or, in the
    /// server, in worker processes (it is one global instance per process).
    static func synthesizers(espeak: (any Synthesizer)? = nil) -> SynthesizerRegistry {
        SynthesizerRegistry([
            EspeakSynthesizer.engineName: { try espeak ?? EspeakSynthesizer.shared() },
            UpstreamSynthesizer.engineName: { UpstreamSynthesizer(reachable: acceptsConnections) },
            PiperSynthesizer.engineName: { PiperSynthesizer() },
        ])
    }

    /// Which local transcriber: `--engine whisper|pocketsphinx` and `--model NAME|PATH` (TranscriptionFlags).
    struct LocalTranscriber {
        static let engines = ["whisper", "pocketsphinx"]
        var engine: String?
        var model: String?
        /// Whisper's threads (`speak transcribe --threads`); `nil` lets it share the free cores.
        var threads: Int?
        /// Whisper's beams (`--beam-size`); `nil` takes `SPEAK_WHISPER_BEAM_SIZE`, else greedy.
        var beamSize: Int?
    }

    /// The transcriber for `speak transcribe`, `speak ask` and `speak serve`, chosen here only: the
    /// named upstream; else Whisper when a model is installed (or `--engine whisper` asks), else
    /// pocketsphinx, the small fallback (`poolSize` decoders for a server's parallel requests). One
    /// Whisper model serves every request of a server (it keeps its own bounded pool of states).
    static func transcriber(
        upstream: TranscriptionUpstream?, local: LocalTranscriber = LocalTranscriber(), poolSize: Int? = nil
    ) throws -> any Transcriber {
        if let upstream { return RemoteTranscriber(upstream: upstream) }
        if local.engine != "pocketsphinx" {
            let wanted = local.engine == "whisper" || local.model != nil
            do {
                return try WhisperTranscriber(
                    model: WhisperModel.find(local.model),
                    configuration: .init(
                        threads: local.threads,
                        beamSize: local.beamSize
                            ?? WhisperTranscriber.Configuration.beamSize(
                                environment: ProcessInfo.processInfo.environment)
                    ))
            } catch  where wanted || error.kind == .modelCorrupt {
                throw error
            } catch {
                // No Whisper model installed: pocketsphinx answers.
            }
        }
        if let poolSize {
            return TranscriberPool(size: poolSize, about: PocketSphinxTranscriber.englishUS) {
                try PocketSphinxTranscriber()
            }
        }
        return try PocketSphinxTranscriber()
    }
}
