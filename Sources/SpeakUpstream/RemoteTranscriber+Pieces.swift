import Foundation
import SpeakKit

/// Cutting a recording too large for one upload into pieces that fit, at silences.
extension RemoteTranscriber {
    /// The recording as MP3 uploads under `maxUploadBytes` each, with the samples each one holds.
    func encodedPieces(of audio: PCMBuffer) throws(TranscriptionError) -> [(Range<Int>, Data)] {
        let bytesPerSecond = Self.uploadSettings.bitrate * 1000 / 8
        let budget = maxUploadBytes - Self.encoderOverhead
        guard budget >= bytesPerSecond / 10 else {
            throw TranscriptionError(
                message: "an upload limit of \(maxUploadBytes) bytes is too small for MP3", isRetryable: false)
        }
        let maxLength = Int(Double(budget) / Double(bytesPerSecond) * Double(audio.sampleRate))
        return try encodedPieces(0..<audio.samples.count, of: audio, maxLength: maxLength)
    }

    /// Plans pieces from the bit rate, then checks each one's real size and cuts again what is over.
    private func encodedPieces(
        _ range: Range<Int>, of audio: PCMBuffer, maxLength: Int
    ) throws(TranscriptionError) -> [(Range<Int>, Data)] {
        var pieces: [(Range<Int>, Data)] = []
        for piece in Self.cut(range, of: audio.samples, maxLength: maxLength, window: QuietCut.window(audio.sampleRate))
        {
            let mp3: Data
            do {
                let pcm = PCMBuffer(sampleRate: audio.sampleRate, samples: Array(audio.samples[piece]))
                mp3 = try MP3Encoder.encodeFile(pcm, settings: Self.uploadSettings)
            } catch {
                throw TranscriptionError(message: "cannot encode the recording: \(error)", isRetryable: false)
            }
            if mp3.count <= maxUploadBytes {
                pieces.append((piece, mp3))
                continue
            }
            let smaller = piece.count * maxUploadBytes / mp3.count * 9 / 10
            guard smaller >= QuietCut.window(audio.sampleRate) else {
                throw TranscriptionError(
                    message: "an upload limit of \(maxUploadBytes) bytes is too small for MP3", isRetryable: false)
            }
            pieces += try encodedPieces(piece, of: audio, maxLength: smaller)
        }
        return pieces
    }

    /// `range` in as few pieces as hold at most `maxLength` samples each, of about equal length: each
    /// cut is at the quietest `window` within a quarter piece of the even cut point, nearest that
    /// point on ties, but never where the piece before it or the rest after it would not fit.
    static func cut(_ range: Range<Int>, of samples: [Int16], maxLength: Int, window: Int) -> [Range<Int>] {
        guard range.count > maxLength, maxLength > 0 else { return [range] }
        let count = (range.count + maxLength - 1) / maxLength
        let reach = range.count / count / 4
        var cuts = [range.lowerBound]
        for index in 1..<count {
            let previous = cuts[cuts.count - 1]
            let ideal = range.lowerBound + range.count * index / count
            let earliest = max(previous + 1, range.upperBound - (count - index) * maxLength)
            let latest = min(previous + maxLength, range.upperBound - 1)
            let center = min(max(ideal, earliest), latest)
            cuts.append(
                QuietCut.quietest(
                    in: max(earliest, center - reach)...min(latest, center + reach), near: center, of: samples,
                    window: window))
        }
        cuts.append(range.upperBound)
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }
}
