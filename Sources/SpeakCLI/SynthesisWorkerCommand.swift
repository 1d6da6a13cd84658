import Foundation
import SpeakKit

/// `speak worker`: one synthesis process of `speak serve`'s worker pool (not in --help).
package enum SynthesisWorkerCommand {
    package static func main() -> Int32 {
        SynthesisWorker.serve(input: .standardInput, output: .standardOutput)
        return ExitCode.success.rawValue
    }
}
