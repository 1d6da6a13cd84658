import FoundationEssentials
import Glibc

/// Where a running `speak serve` listens for this user's own commands, so that `speak -v joe …`
/// can hand its text to a server whose neural model is already loaded instead of loading it:
/// `$SPEAK_SOCKET` when set (empty: none), else `$XDG_RUNTIME_DIR/speak/serve.sock`, else none
/// (without a runtime directory there is no place only this user can reach).
public enum LocalSocket {
    public static var path: String? {
        if let path = EnvironmentSettings.current.socket { return path.isEmpty ? nil : path }
        guard let runtime = environmentValue("XDG_RUNTIME_DIR"), !runtime.isEmpty else { return nil }
        return "\(runtime)/speak/serve.sock"
    }
}
