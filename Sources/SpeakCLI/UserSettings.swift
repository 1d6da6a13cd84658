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

    /// The voice `speak` uses without `-v`. A config file that is there but not the JSON object
    /// it should be is an error (65) naming it: ignored, it would leave the user wondering why
    /// their voice is not the one they chose.
    package static func defaultVoiceName() throws -> String {
        if let name = EnvironmentSettings.current.voice { return name }
        let path = configFile.path
        guard let bytes = try? FileSystem.contents(of: path) else { return VoiceCatalog.defaultVoiceName }
        guard case .object(let settings)? = try? JSONValue(parsing: bytes) else {
            throw InputError(code: .dataError, message: "\(path) is not a JSON object such as {\"default\": \"joe\"}")
        }
        switch settings["default"] {
        case nil: return VoiceCatalog.defaultVoiceName
        case .string(let name)? where !name.isEmpty: return name
        default: throw InputError(code: .dataError, message: "\(path): \"default\" must name a voice")
        }
    }
}
