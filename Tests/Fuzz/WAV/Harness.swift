import Foundation
import FuzzDriver
import SpeakKit

// libFuzzer harness: the WAV header check and reader on arbitrary bytes. A valid header must
// decode to no more samples than the bytes present allow. Built only by Scripts/fuzz.

// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzWAV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzInput(data, size))
    if let format = try? WAV.format(of: bytes) {
        precondition(WAV.sampleRates.contains(format.sampleRate) && WAV.channelCounts.contains(format.channels))
        precondition(format.samples.upperBound <= bytes.count)
    }
    if let pcm = try? WAV.decode(bytes) {
        precondition(pcm.samples.count * 2 <= bytes.count, "\(pcm.samples.count) samples from \(bytes.count) bytes")
    }
    // The same bytes at an offset: the reader must not assume a zero start index.
    _ = try? WAV.decode(bytes.dropFirst(0))
    return 0
}
