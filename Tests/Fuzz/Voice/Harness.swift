import Foundation
import FuzzDriver
import SpeakKit

// libFuzzer harness: a voice file's JSON (`Voices/*.json`, --voices-dir) decoded as `Voice`, and
// re-encoded when it decodes. Built only by Scripts/fuzz.

// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzVoice(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzInput(data, size))
    if let voice = try? JSONDecoder().decode(Voice.self, from: bytes) {
        _ = try? JSONEncoder().encode(voice)
    }
    return 0
}
