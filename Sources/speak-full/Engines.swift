import Foundation
import SpeakKit
import SpeakPiper
import SpeakPocketSphinx
import SpeakServer
import SpeakUpstream

/// Every engine speak-full carries, registered here and only here: adding an engine is a line in
/// this file, and no front end changes.
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

    /// The transcriber for `speak transcribe`, `speak ask` and `speak serve`: the named upstream,
    /// else pocketsphinx here (`poolSize` decoders for a server's parallel requests).
    static func transcriber(upstream: TranscriptionUpstream?, poolSize: Int? = nil) throws -> any Transcriber {
        if let upstream { return RemoteTranscriber(upstream: upstream) }
        if let poolSize { return TranscriberPool(size: poolSize) { try PocketSphinxTranscriber() } }
        return try PocketSphinxTranscriber()
    }
}
