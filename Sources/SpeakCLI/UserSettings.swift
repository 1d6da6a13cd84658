import FoundationEssentials
import Glibc
import SpeakKit

/// What a user sets once, as macOS users set the system voice for `say`: `SPEAK_VOICE`, else
/// `{"default": "joe"}` in `$XDG_CONFIG_HOME/speak/config.json`, else espeak-ng's instant `default`
/// (audible confirmations must not wait for a model to load).
package enum UserSettings {
    package static var configFile: URL {
        let base = environmentValue("XDG_CONFIG_HOME") ?? ((environmentValue("HOME") ?? "/tmp") + "/.config")
        return URL(fileURLWithPath: base + "/speak/config.json")
    }

    /// The voice `speak` uses without `-v`.
    package static var defaultVoiceName: String {
        if let name = environmentValue("SPEAK_VOICE"), !name.isEmpty { return name }
        if let bytes = try? FileSystem.contents(of: configFile.path),
            case .object(let settings)? = try? JSONValue(parsing: bytes),
            case .string(let name)? = settings["default"], !name.isEmpty
        {
            return name
        }
        return VoiceCatalog.defaultVoiceName
    }
}
