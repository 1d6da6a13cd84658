import Foundation
import FuzzDriver

@testable import SpeakServer

// libFuzzer harness: `speak serve --config FILE`'s JSON decoded as `ServerConfiguration`.
// Built only by Scripts/fuzz.

// Also libFuzzer's entry point by name, which its archive's `main` wants resolved.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzInput(data, size))
    if let configuration = try? JSONDecoder().decode(ServerConfiguration.self, from: bytes) {
        _ = (configuration.effectiveThreads, configuration.effectiveWorkers)
        _ = try? JSONEncoder().encode(configuration)
    }
    return 0
}
