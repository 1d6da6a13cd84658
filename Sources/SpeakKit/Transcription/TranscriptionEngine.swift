import FoundationEssentials
import Glibc

/// Transcription as every front end asks for it: a file in any format the decoder reads, or PCM at
/// any rate, width and channel count, converted once to 16 kHz mono and handed to the transcriber.
///
/// The conversion lives here and nowhere else: front ends do not decode or resample, and a
/// transcriber only ever sees 16 kHz mono (the ``Transcriber`` contract). A file goes through the
/// decoder, which resamples as it decodes where it can (FFmpeg filters before it decimates); what
/// the decoder leaves at another rate, and all raw PCM, goes through one ``Resampler``.
public struct TranscriptionEngine: Sendable {
    /// The one rate transcribers take (Whisper's and the pocketsphinx model's).
    public static let sampleRate = 16000

    /// The longest audio transcribed unless the caller says otherwise: two hours. `speak serve`
    /// answers 413 past it (`maximumAudioSeconds`), `speak transcribe` exits 65.
    public static let defaultMaximumSeconds = 7200

    public let transcriber: any Transcriber
    public let decoder: any AudioFileDecoder
    /// Tells speech from silence for live sessions.
    public let voiceActivity: VoiceActivity

    public init(
        transcriber: any Transcriber, decoder: any AudioFileDecoder = WAVAndMP3Decoder(),
        voiceActivity: VoiceActivity = .level
    ) {
        self.transcriber = transcriber
        self.decoder = decoder
        self.voiceActivity = voiceActivity
    }

    // MARK: Files

    /// The transcript of `file`, decoded and transcribed a piece at a time
    /// (``transcribe(descriptor:maximumSeconds:options:)``), so a long recording costs a piece's
    /// memory, not its length's. A file that cannot be opened is a ``SystemCallError``.
    public func transcribe(file: URL, maximumSeconds: Int? = nil, options: TranscriptionOptions) throws -> Transcript {
        let descriptor = try SystemCall.retrying("open") { open(file.path, O_RDONLY | O_CLOEXEC) }
        defer { close(descriptor) }
        return try transcribe(descriptor: descriptor, maximumSeconds: maximumSeconds, options: options)
    }

    // MARK: PCM

    /// Mono 16-bit audio at any rate, resampled to 16 kHz if it is at another.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript {
        try transcriber.transcribe(Self.converted(audio), options: options)
    }

    /// Raw PCM in `format`, whole.
    public func transcribe(_ bytes: [UInt8], format: PCMFormat, options: TranscriptionOptions) throws -> Transcript {
        var input = stream(format, options: options)
        try input.append(bytes)
        return try input.finish()
    }

    /// A recording of raw PCM in `format` to be fed in chunks as it arrives, converted as they
    /// come and transcribed a piece at a time.
    public func stream(_ format: PCMFormat, options: TranscriptionOptions) -> TranscriptionStream {
        TranscriptionStream(transcriber: transcriber, format: format, options: options)
    }

    /// A live session over raw PCM in `format` (text while the person speaks). With `turns` a
    /// detector of ``voiceActivity`` ends each turn at a pause; without, a turn lasts until the
    /// front end commits it.
    public func live(
        _ format: PCMFormat, options: TranscriptionOptions, turns: Bool = true,
        settings: LiveTranscription.Settings = .init()
    ) throws -> LiveTranscription {
        LiveTranscription(
            transcriber: transcriber, format: format, options: options,
            detector: turns ? try voiceActivity.make() : nil, settings: settings)
    }

    /// Why a transcriber cannot take `audio` as it is, or `nil` when it is at 16 kHz.
    public static func rateProblem(_ audio: PCMBuffer) -> String? {
        guard audio.sampleRate != sampleRate else { return nil }
        return "audio at \(audio.sampleRate) Hz; a transcriber takes \(sampleRate) Hz mono "
            + "(TranscriptionEngine converts it)"
    }

    /// `audio` at 16 kHz: itself if it is already, else resampled in one step.
    public static func converted(_ audio: PCMBuffer) -> PCMBuffer {
        guard audio.sampleRate != sampleRate else { return audio }
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: sampleRate)
        return PCMBuffer(sampleRate: sampleRate, samples: resampler.process(audio.samples) + resampler.finish())
    }
}
