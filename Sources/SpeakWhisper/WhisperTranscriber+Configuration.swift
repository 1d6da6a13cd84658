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
        /// 1 decodes greedily (with best-of-5 sampling on temperature fallback); more is beam search.
        public var beamSize: Int
        /// How much the encoder looks at for audio shorter than 30 s.
        public var encoderWindow: EncoderWindow
        /// How far the heard text may be from the closest expected phrase and still count as it:
        /// the edit distance over the longer length, 0...1.
        public var phraseTolerance: Double
        /// How expected phrases are listened for.
        public var phraseMode: PhraseMode

        public init(
            threads: Int? = nil, maxConcurrentCalls: Int = ProcessInfo.processInfo.activeProcessorCount,
            beamSize: Int = 1, encoderWindow: EncoderWindow = .fitted(padding: 500, minimum: 0),
            phraseTolerance: Double = ExpectedPhrases.defaultTolerance, phraseMode: PhraseMode = .closestMatch
        ) {
            self.threads = threads
            self.maxConcurrentCalls = maxConcurrentCalls
            self.beamSize = beamSize
            self.encoderWindow = encoderWindow
            self.phraseTolerance = phraseTolerance
            self.phraseMode = phraseMode
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

        /// The `audio_ctx` for `samples` at 16 kHz; 0 is whisper's full window.
        func audioContext(samples: Int, full: Int) -> Int32 {
            guard case .fitted(let padding, let minimum) = self else { return 0 }
            let frames = (samples + 319) / 320
            let fitted = max(minimum, frames + padding)
            return fitted >= full ? 0 : Int32(fitted)
        }
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
