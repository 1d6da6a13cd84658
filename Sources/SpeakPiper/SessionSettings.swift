import FoundationEssentials
import SpeakKit

/// How ONNX Runtime runs Piper models: the process's thread pool, and each session's options.
struct SessionSettings: Equatable, Sendable {
    /// Intra-op threads of the one thread pool every session shares, the calling thread included.
    var threads: Int
    /// Whether ONNX Runtime's idle intra-op threads spin (busy-wait) for work between operators,
    /// its default and piper-tts'. Spinning is a little faster on an idle machine; on one whose
    /// cores are busy (other programs) a spinning thread holds a core that the thread it waits for
    /// needs, and sleeping threads finish sooner.
    var spinning: Bool
    /// Whether sessions keep ONNX Runtime's CPU arena, which grows to the largest run and keeps it.
    /// Without it every run allocates its buffers afresh, which slows every reply.
    var arena: Bool = true

    /// The settings for this machine: as many threads as cores (at most 4), spinning, with the arena;
    /// `SPEAK_PIPER_THREADS` (1–64), `SPEAK_PIPER_SPINNING` and `SPEAK_PIPER_ARENA` (`1` or `0`)
    /// override them.
    static func standard(
        cores: Int = ProcessInfo.processInfo.activeProcessorCount, environment: EnvironmentSettings = .current
    ) -> SessionSettings {
        SessionSettings(
            threads: environment.piperThreads ?? min(max(cores, 1), 4), spinning: environment.piperSpinning ?? true,
            arena: environment.piperArena ?? true)
    }

    /// The settings a process with `environment` would take.
    static func standard(cores: Int = ProcessInfo.processInfo.activeProcessorCount, environment: [String: String])
        -> SessionSettings
    {
        standard(cores: cores, environment: EnvironmentSettings(environment: environment))
    }
}
