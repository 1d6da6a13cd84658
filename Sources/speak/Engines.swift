import SpeakCLI
import SpeakKit
import SpeakPiper

/// Every engine the light `speak` carries, registered here and only here; speak-full keeps its own
/// list in Sources/speak-full/Engines.swift. What `speak` does not carry it hands to speak-full.
enum Engines {
    static func synthesizers() -> SynthesizerRegistry {
        SynthesizerRegistry([
            EspeakSynthesizer.engineName: { try EspeakSynthesizer.shared() },
            // A running `speak serve` has the model loaded already: it speaks, if it is there.
            PiperSynthesizer.engineName: { LocalServerHandoff(local: PiperSynthesizer()) },
        ])
    }
}
