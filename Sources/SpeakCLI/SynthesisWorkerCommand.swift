import FoundationEssentials
import Glibc
import SpeakKit

/// `speak worker`: one synthesis process of `speak serve`'s worker pool (not in --help).
package enum SynthesisWorkerCommand {
    package static func main() -> Int32 {
        SynthesisWorker.serve(input: STDIN_FILENO, output: STDOUT_FILENO)
        return ExitCode.success.rawValue
    }
}
