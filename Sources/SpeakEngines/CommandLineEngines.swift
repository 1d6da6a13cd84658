import SpeakCLI
import SpeakKit
import SpeakPiper

/// The synthesizers a command speaks with, composed here for both binaries, so `speak -v joe` does
/// the same whichever of them runs it: espeak-ng in this process, and a Piper voice through a
/// running `speak serve` (its model is loaded already), else here. speak-full adds the remote
/// engine; `speak serve` composes its own (espeak-ng in worker processes, Piper in process).
public enum CommandLineEngines {
    public static func synthesizers(remote: (name: String, make: @Sendable () -> any Synthesizer)? = nil)
        -> SynthesizerRegistry
    {
        let espeak: @Sendable () throws -> any Synthesizer = { try EspeakSynthesizer.shared() }
        let piper: @Sendable () -> any Synthesizer = {
            LocalServerHandoff(local: PiperSynthesizer(settings: .init(environment: .current)))
        }
        guard let remote else {
            return SynthesizerRegistry(
                [EspeakSynthesizer.engineName: espeak, PiperSynthesizer.engineName: piper],
                warmUp: EspeakSynthesizer.warmUp)
        }
        return SynthesizerRegistry(
            [EspeakSynthesizer.engineName: espeak, remote.name: remote.make, PiperSynthesizer.engineName: piper],
            warmUp: EspeakSynthesizer.warmUp)
    }
}
