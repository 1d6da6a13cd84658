import Foundation
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
        if let data = try? Data(contentsOf: configFile),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let name = object["default"] as? String, !name.isEmpty
        {
            return name
        }
        return VoiceCatalog.defaultVoiceName
    }
}
