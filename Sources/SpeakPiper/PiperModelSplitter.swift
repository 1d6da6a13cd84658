import FoundationEssentials
import Glibc
import SpeakKit

/// Saves a Piper model as ONNX Runtime optimises it and splits it at its decoder for first-sentence
/// streaming (``PiperSplitModel``), with the tools `Scripts/install-piper` leaves in
/// `lib/speak/piper-split` (`split-piper.py` and the Python packages it runs on). Run by
/// ``PiperVoicePreparation/prepare(model:into:split:)`` when a voice is installed; without the
/// tools the voice loads the model itself, optimising it as it loads, and decodes every sentence whole.
enum PiperModelSplitter {
    static let relativeDirectory = "lib/speak/piper-split"

    /// `SPEAK_PIPER_SPLIT_TOOLS` alone when set; else beside the executable's prefix, then /usr/local and /usr.
    static func toolDirectory(environment: EnvironmentSettings = .current) -> String? {
        let candidates: [String]
        if let path = environment.piperSplitTools {
            candidates = [path]
        } else {
            let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            candidates = [
                bin.appendingPathComponent("../" + relativeDirectory).standardizedFileURL.path,
                "/usr/local/" + relativeDirectory, "/usr/" + relativeDirectory,
            ]
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/split-piper.py") }
    }

    /// Writes `model`'s parts beside it for this process's ONNX Runtime, unless current ones are
    /// there. Returns why it did not, or `nil` when the parts are there.
    @discardableResult
    static func split(_ model: URL) -> String? {
        let runtime: OnnxRuntime
        do { runtime = try OnnxRuntime.shared() } catch { return error.description }
        guard let version = runtime.version else { return "the ONNX Runtime does not tell its version" }
        if PiperSplitModel.currentLayout(for: model, onnxRuntime: version) != nil { return nil }
        guard let tools = toolDirectory() else {
            return "no \(relativeDirectory)/split-piper.py (Scripts/install-piper)"
        }
        let python = ProcessInfo.processInfo.environment["PYTHON"] ?? "python3"
        let status = run([python, tools + "/split-piper.py", model.path, version], pythonPath: tools)
        guard status == 0 else { return "split-piper.py exited with status \(status)" }
        return PiperSplitModel.currentLayout(for: model, onnxRuntime: version) == nil ? "no parts written" : nil
    }

    /// Writes `model`'s optimised copy for this process's ONNX Runtime beside it, with the stamp of
    /// the model it was made from (``PiperVoicePreparation/currentOptimizedFile(for:onnxRuntime:)``),
    /// unless a current one is there. Returns why it did not, or `nil` when the copy is there.
    @discardableResult
    static func optimize(_ model: URL) -> String? {
        let runtime: OnnxRuntime
        do { runtime = try OnnxRuntime.shared() } catch { return error.description }
        guard let version = runtime.version else { return "the ONNX Runtime does not tell its version" }
        if PiperVoicePreparation.currentOptimizedFile(for: model, onnxRuntime: version) != nil { return nil }
        guard let tools = toolDirectory() else { return "no \(relativeDirectory) (Scripts/install-piper)" }
        guard let stamp = PiperVoicePreparation.sourceStamp(of: model) else { return "cannot read \(model.path)" }
        let optimized = PiperVoicePreparation.optimizedFile(for: model, onnxRuntime: version)
        let python = ProcessInfo.processInfo.environment["PYTHON"] ?? "python3"
        let status = run([python, "-c", optimizing, model.path, optimized.path], pythonPath: tools)
        guard status == 0 else { return "optimising exited with status \(status)" }
        // The model changed meanwhile: the copy is not of the model as it is.
        guard PiperVoicePreparation.sourceStamp(of: model) == stamp else { return "\(model.path) changed" }
        do {
            let file = PiperVoicePreparation.optimizedSourceFile(for: model, onnxRuntime: version)
            try PiperVoicePreparation.write(file) { append in
                try Array((stamp + "\n").utf8).withUnsafeBytes { try append($0) }
            }
        } catch { return error.description }
        return nil
    }

    /// Saves argv[1] as ONNX Runtime optimises it (level "extended", not tied to the processor) to
    /// argv[2], through a temporary file beside it, as `Scripts/install-piper` does for joe.
    private static let optimizing = """
        import os, sys, onnxruntime
        source, target = sys.argv[1], sys.argv[2]
        temporary = target + ".tmp"
        if os.path.lexists(temporary):
            os.unlink(temporary)
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = temporary
        options.log_severity_level = 3
        try:
            onnxruntime.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])
            os.replace(temporary, target)
        finally:
            if os.path.lexists(temporary):
                os.unlink(temporary)
        """

    /// Runs `argv` (found on PATH) with PYTHONPATH set, its output to /dev/null; its exit status.
    private static func run(_ argv: [String], pythonPath: String) -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = pythonPath
        let pairs = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let arguments = argv.map { strdup($0) } + [nil]
        defer {
            for pointer in pairs { free(pointer) }
            for pointer in arguments { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        guard posix_spawnp(&pid, argv[0], &actions, nil, arguments, pairs) == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which do not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
