import Foundation

/// libFuzzer's own driver (`-sanitize=fuzzer` links it), run with a harness's input function.
/// SwiftPM makes every executable's entry point its `main`, so the harnesses call the driver
/// instead of leaving `main` to libFuzzer.
// swift-format-ignore: AlwaysUseLowerCamelCase
// The name is libFuzzer's C symbol.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with this process's arguments (`-max_total_time=60 corpus/` and the rest).
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// The input as a buffer (libFuzzer passes a null pointer for the empty input).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
}
