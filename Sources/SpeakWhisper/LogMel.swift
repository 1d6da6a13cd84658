import Foundation

/// Whisper's log-mel spectrogram as faster-whisper computes it: the audio's own frames only, so
/// that whisper.cpp's encoder reads zeros past them, as faster-whisper pads its input.
///
/// whisper.cpp's own spectrogram pads the audio with 30 s of silence, which reaches the encoder as
/// the clamp floor (about -1) rather than 0, and the model hears the words before it differently:
/// with zeros it misheard fewer words (Benchmarks/README.md, transcription).
struct LogMel: Sendable {
    static let fftLength = 400
    static let hop = 160
    /// Frequency bins of a frame: 0 to Nyquist.
    static let bins = fftLength / 2 + 1

    let bands: Int
    /// The model's filter bank, `bands` rows of ``bins`` weights.
    private let filters: [Float]
    /// cos and sin of each bin at each sample, times the periodic Hann window: row k is bin k.
    private let cosine: [Float]
    private let sine: [Float]

    init(filters: [Float], bands: Int) {
        precondition(filters.count == bands * Self.bins, "a filter bank of \(bands) × \(Self.bins)")
        self.filters = filters
        self.bands = bands
        let n = Self.fftLength
        var cosine = [Float](repeating: 0, count: Self.bins * n)
        var sine = [Float](repeating: 0, count: Self.bins * n)
        for sample in 0..<n {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(sample) / Double(n))
            for bin in 0..<Self.bins {
                let angle = 2 * Double.pi * Double((bin * sample) % n) / Double(n)
                cosine[bin * n + sample] = Float(window * cos(angle))
                sine[bin * n + sample] = Float(window * sin(angle))
            }
        }
        self.cosine = cosine
        self.sine = sine
    }

    /// The spectrogram of 16 kHz `samples`: `frames` = samples / 160 columns, stored band by band
    /// (`data[band * frames + frame]`), as whisper_set_mel takes it. faster-whisper's steps: 160
    /// zeros after the audio, 200 samples reflected at each end, power spectra of windowed frames
    /// every 160 samples, mel bands, log10 floored at 1e-10 and at the maximum − 8, then (x + 4) / 4.
    func spectrogram(_ samples: [Float]) -> (data: [Float], frames: Int) {
        let n = Self.fftLength
        let half = n / 2
        let count = samples.count
        let frames = count / Self.hop
        // One frame more than handed on: its values count towards the maximum, as in faster-whisper.
        let computed = frames + 1
        let extended = count + Self.hop
        func padded(_ index: Int) -> Float {
            var i = index - half
            if i < 0 { i = -i }
            if i >= extended { i = 2 * (extended - 1) - i }
            return i >= 0 && i < count ? samples[i] : 0
        }
        var mel = [Float](repeating: 0, count: bands * computed)
        var frame = [Float](repeating: 0, count: n)
        var power = [Float](repeating: 0, count: Self.bins)
        cosine.withUnsafeBufferPointer { cosine in
            sine.withUnsafeBufferPointer { sine in
                filters.withUnsafeBufferPointer { filters in
                    for column in 0..<computed {
                        let start = column * Self.hop
                        for i in 0..<n { frame[i] = padded(start + i) }
                        frame.withUnsafeBufferPointer { frame in
                            for bin in 0..<Self.bins {
                                var re: Float = 0
                                var im: Float = 0
                                let row = bin * n
                                for i in 0..<n {
                                    re += frame[i] * cosine[row + i]
                                    im += frame[i] * sine[row + i]
                                }
                                power[bin] = re * re + im * im
                            }
                        }
                        for band in 0..<bands {
                            var sum: Float = 0
                            let row = band * Self.bins
                            for bin in 0..<Self.bins { sum += filters[row + bin] * power[bin] }
                            mel[band * computed + column] = log10(max(sum, 1e-10))
                        }
                    }
                }
            }
        }
        let floor = (mel.max() ?? 0) - 8
        var data = [Float](repeating: 0, count: bands * frames)
        for band in 0..<bands {
            for column in 0..<frames {
                data[band * frames + column] = (max(mel[band * computed + column], floor) + 4) / 4
            }
        }
        return (data, frames)
    }
}

extension WhisperModel {
    /// The mel filter bank stored after the header: (bands, bins per band, the weights).
    func melFilters() throws(WhisperError) -> (bands: Int, bins: Int, weights: [Float]) {
        guard let handle = FileHandle(forReadingAtPath: path),
            let head = try? { () throws -> Data? in
                try handle.seek(toOffset: 48)
                return try handle.read(upToCount: 8)
            }(), head.count == 8
        else {
            throw WhisperError(.modelCorrupt, function: "open", message: "cannot read the mel filters in \(path)")
        }
        defer { try? handle.close() }
        func int32(at offset: Int) -> Int {
            head.withUnsafeBytes { Int(Int32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int32.self))) }
        }
        let (bands, bins) = (int32(at: 0), int32(at: 4))
        guard (1...256).contains(bands), (1...1024).contains(bins),
            let body = try? handle.read(upToCount: bands * bins * 4), body.count == bands * bins * 4
        else {
            throw WhisperError(.modelCorrupt, function: "open", message: "\(path) has no readable mel filters")
        }
        let weights = body.withUnsafeBytes { raw in
            (0..<bands * bins).map { index in
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
            }
        }
        return (bands, bins, weights)
    }
}
