import Foundation
import FuzzDriver
import SpeakKit

// libFuzzer harness: a voice file's bytes (`Voices/*.json`, --voices-dir) parsed as the catalog
// parses them (JSONParser, then `Voice(json:)`), and re-encoded when they make a voice. Built only
// by Scripts/fuzz.

// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzVoice(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzInput(data, size))
    if let json = try? JSONValue(parsing: bytes), let voice = try? Voice(json: json) {
        _ = try? JSONEncoder().encode(voice)
    }
    return 0
}
