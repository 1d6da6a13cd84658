import Foundation
import SpeakCLI
import SpeakEngines
import SpeakKit
import SpeakMedia
import SpeakPiper
import SpeakPocketSphinx
import SpeakServer
import SpeakUpstream
import SpeakWhisper

/// Every engine speak-full carries, registered here and in SpeakEngines (what both binaries'
/// commands speak with): adding an engine is a line, and no front end changes, as each engine
/// describes itself (``Transcriber/about``, ``Synthesizer/speakers(of:)``).
enum Engines {
    /// What a command speaks with: the light `speak`'s synthesizers and the remote engine.
    static func commandLineSynthesizers() -> SynthesizerRegistry {
        CommandLineEngines.synthesizers(remote: (UpstreamSynthesizer.engineName, upstream))
    }

    /// What `speak serve` speaks with: espeak-ng in `workers` (it is one global instance per
    /// process), Piper in process (the server is where its models stay loaded), the remote engine.
    static func serverSynthesizers(workers: any Synthesizer) -> SynthesizerRegistry {
        SynthesizerRegistry([
            EspeakSynthesizer.engineName: { workers }, UpstreamSynthesizer.engineName: upstream,
            PiperSynthesizer.engineName: { PiperSynthesizer(settings: .init(environment: .current)) },
        ])
    }

    private static let upstream: @Sendable () -> any Synthesizer = {
        UpstreamSynthesizer(reachable: acceptsConnections)
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

    /// SpeakKit's codecs and FFmpeg's, for every command and the server.
    static let codecs = Codecs.ffmpeg

    /// How every command's audio reaches `transcriber`: files of any format through FFmpeg; a live
    /// session's turns told by ``voiceActivity``.
    static func transcription(_ transcriber: any Transcriber) -> TranscriptionEngine {
        TranscriptionEngine(transcriber: transcriber, decoder: codecs.decoder, voiceActivity: voiceActivity)
    }

    /// Silero VAD when its model is installed (in the directories Whisper models are looked up in),
    /// else the level detector; a model that cannot be used is said once on stderr. Its session is
    /// made by the first live session, not here.
    static let voiceActivity: VoiceActivity = {
        guard let path = SileroModel.find(in: WhisperModel.searchDirectories()) else { return .level }
        return SileroModel.voiceActivity(at: path) { error in
            FileHandle.standardError.write(Data("speak: \(error); telling speech by its level instead\n".utf8))
        }
    }()

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
