internal import CWhisper
import Foundation
import SpeakKit

/// How a transcriber decodes: threads, concurrent calls, beam, encoder window, expected phrases.
extension WhisperTranscriber {
    public struct Configuration: Sendable, Equatable {
        /// Threads per call; `nil` shares the machine's cores among the calls running at that moment
        /// (all of them for a lone caller). ggml's threads spin while they wait, so more threads
        /// than cores slows everything down.
        public var threads: Int?
        /// Decoding states kept: how many calls decode at once; more callers wait their turn.
        public var maxConcurrentCalls: Int
        /// 1 decodes greedily, more is beam search with that many beams (at most
        /// ``maxBeamSize``); either way a temperature fallback samples 5 candidates.
        /// `SPEAK_WHISPER_BEAM_SIZE` sets the default (``beamSize(environment:)``).
        public var beamSize: Int
        /// How much the encoder looks at for audio shorter than 30 s.
        public var encoderWindow: EncoderWindow
        /// How far the heard text may be from the closest expected phrase and still count as it:
        /// the edit distance over the longer length, 0...1.
        public var phraseTolerance: Double
        /// How expected phrases are listened for.
        public var phraseMode: PhraseMode
        /// Whose log-mel spectrogram the encoder reads.
        public var spectrogram: Spectrogram

        /// whisper.cpp decodes at most 8 sequences at once.
        public static let maxBeamSize = 8
        /// Candidates sampled when a window falls back to a higher temperature.
        static let bestOf = 5
        /// The default beam size: `SPEAK_WHISPER_BEAM_SIZE` (1 to ``maxBeamSize``) when set, else greedy.
        /// Anything else there is named once on stderr and the default kept.
        public static func beamSize(environment: EnvironmentSettings) -> Int {
            switch environment.whisperBeamSize {
            case nil: return defaultBeamSize
            case .success(let size): return size
            case .failure(let rejected):
                warnOnce("speak: \(rejected); decoding with \(defaultBeamSize)\n")
                return defaultBeamSize
            }
        }

        /// The default beam size of a process with `environment`.
        public static func beamSize(environment: [String: String]) -> Int {
            beamSize(environment: EnvironmentSettings(environment: environment))
        }

        /// The default spectrogram: faster-whisper's with `SPEAK_WHISPER_SPECTROGRAM=faster-whisper`, else
        /// whisper.cpp's. faster-whisper's lowered the benchmark's word errors (Benchmarks/README.md) but
        /// lost a prompt's spelling, a translation's words and a cut-off recording in the CLI tests.
        public static func spectrogram(environment: EnvironmentSettings) -> Spectrogram {
            environment.fasterWhisperSpectrogram ? .fasterWhisper : .whisperCpp
        }

        /// The default spectrogram of a process with `environment`.
        public static func spectrogram(environment: [String: String]) -> Spectrogram {
            spectrogram(environment: EnvironmentSettings(environment: environment))
        }

        /// Greedy: on the benchmark set beam search heard no better and took longer (Benchmarks/README.md).
        public static let defaultBeamSize = 1

        private static let warned = Locked(Set<String>())
        private static func warnOnce(_ message: String) {
            guard warned.withLock({ $0.insert(message).inserted }) else { return }
            FileHandle.standardError.write(Data(message.utf8))
        }

        public init(
            threads: Int? = nil, maxConcurrentCalls: Int = ProcessInfo.processInfo.activeProcessorCount,
            beamSize: Int = Configuration.beamSize(environment: .current),
            encoderWindow: EncoderWindow = .fitted(padding: 500, minimum: 0),
            phraseTolerance: Double = ExpectedPhrases.defaultTolerance, phraseMode: PhraseMode = .closestMatch,
            spectrogram: Spectrogram = Configuration.spectrogram(environment: .current)
        ) {
            self.threads = threads
            self.maxConcurrentCalls = maxConcurrentCalls
            self.beamSize = min(Self.maxBeamSize, max(1, beamSize))
            self.encoderWindow = encoderWindow
            self.phraseTolerance = phraseTolerance
            self.phraseMode = phraseMode
            self.spectrogram = spectrogram
        }
    }

    /// whisper.cpp's encoder always takes 30 s; `audio_ctx` (encoder frames of 20 ms, 1500 in all)
    /// shortens it, and with it the cost, for short audio.
    public enum EncoderWindow: Sendable, Equatable {
        /// Always 30 s, as the models were trained (and as faster-whisper does).
        case full
        /// The audio's own length plus `padding` frames (room after the last word to end the
        /// segment), at least `minimum` frames. Much faster for short clips, a little less accurate.
        case fitted(padding: Int, minimum: Int)

        /// Padding frames of an interim decode (``TranscriptionOptions/interim``): enough to end the
        /// segment after the last word, which the next decode hears again anyway.
        public static let interimPadding = 100
        /// The fewest frames an interim decode's encoder takes: in a shorter window Whisper heard
        /// nothing in a turn's first half second.
        public static let interimMinimum = 500

        /// The `audio_ctx` for `samples` at 16 kHz; 0 is whisper's full window.
        func audioContext(samples: Int, full: Int, interim: Bool = false) -> Int32 {
            guard case .fitted(var padding, var minimum) = self else { return 0 }
            if interim {
                padding = min(padding, Self.interimPadding)
                minimum = max(minimum, Self.interimMinimum)
            }
            let frames = (samples + 319) / 320
            let fitted = max(minimum, frames + padding)
            return fitted >= full ? 0 : Int32(fitted)
        }
    }

    /// The encoder's input past the audio's end decides what the model hears near it.
    public enum Spectrogram: Sendable, Equatable {
        /// faster-whisper's (``LogMel``): the audio's frames, zeros after them. Calls asking for
        /// word timings take whisper.cpp's, whose timings weigh its own copy of the samples.
        case fasterWhisper
        /// whisper.cpp's own: the audio and 30 s of silence, read at the spectrogram's floor.
        case whisperCpp
    }

    /// Two ways to get exactly one of the expected phrases out of Whisper.
    public enum PhraseMode: Sendable, Equatable {
        /// Transcribe freely, with the phrases as the prompt, then take the closest phrase within
        /// ``Configuration/phraseTolerance``, or nothing.
        case closestMatch
        /// Constrain the decoder with a whisper.cpp grammar of the phrases, then match as above.
        case grammar
    }
}

extension WhisperTranscriber.Configuration {
    /// whisper.cpp's parameters for decoding as configured: greedy or beam search, and 5 sampled
    /// candidates when a window falls back to a higher temperature (faster-whisper's `best_of`).
    func decodingParameters() -> whisper_full_params {
        var params = whisper_full_default_params(beamSize > 1 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY)
        params.beam_search.beam_size = Int32(beamSize)
        params.greedy.best_of = Int32(Self.bestOf)
        return params
    }

    /// What ``decodingParameters()`` asks whisper.cpp for, read back from its parameters.
    var decoding: (beamSearch: Bool, beams: Int, fallbackCandidates: Int) {
        let params = decodingParameters()
        let beamSearch = params.strategy == WHISPER_SAMPLING_BEAM_SEARCH
        return (beamSearch, beamSearch ? Int(params.beam_search.beam_size) : 1, Int(params.greedy.best_of))
    }
}
