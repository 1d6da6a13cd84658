import Foundation
import SpeakCLI
import SpeakKit
import SpeakWyoming

/// The Wyoming server's settings from speak-full's environment. What it tells of the engines (the
/// transcriber, a voice's speakers) the engines say themselves: ``WyomingService/TranscriberInfo``
/// and ``WyomingService/Speakers`` ask them.
enum WyomingFrontEnd {
    /// The Wyoming limits, changed by `SPEAK_WYOMING_LIMITS` (`connections=64,per-address=32,
    /// header-seconds=5,…`: see ``WyomingLimits``), for tuning and for tests that must not wait
    /// minutes for a timeout.
    static func limits(environment: EnvironmentSettings = .current) throws -> WyomingLimits {
        guard let text = environment.wyomingLimits else { return WyomingLimits() }
        switch Result(catching: { () throws(WyomingServerError) in try WyomingLimits(parsing: text) }) {
        case .success(let limits): return limits
        case .failure(let error): throw UsageError("SPEAK_WYOMING_LIMITS: \(error)")
        }
    }
}
