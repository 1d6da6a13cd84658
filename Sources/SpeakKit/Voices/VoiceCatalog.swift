import FoundationEssentials
import Glibc

/// The voices the engine knows: the shipped `Voices/*.json`, then any directory the user adds
/// (`--voices-dir`, `SPEAK_VOICES`), whose files replace shipped voices of the same name.
public struct VoiceCatalog: Sendable {
    public static let defaultVoiceName = "default"
    public private(set) var voices: [Voice]
    /// For lookups by name, which the server makes on every request.
    private var byLowercasedName: [String: Voice] = [:]

    /// espeak-ng's own English, for when no voice file names itself `default`.
    public static let builtInDefault = Voice.espeak(
        name: defaultVoiceName, language: "en-US", EspeakVoiceSettings(voice: "gmw/en-US"),
        description: "American English, espeak-ng's standard voice.")

    public init(voices: [Voice]) {
        var voices = voices
        if !voices.contains(where: { $0.name.lowercased() == Self.defaultVoiceName }) {
            voices.append(Self.builtInDefault)
        }
        // Not a localized comparison: that loads ICU's collation tables, which every `speak`'s
        // start would pay for a list of mostly ASCII names.
        self.voices = voices.sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        byLowercasedName = Dictionary(self.voices.map { ($0.name.lowercased(), $0) }) { first, _ in first }
    }

    /// Loads every `*.json` voice in `directories`, later directories overriding earlier ones.
    public init(directories: [URL]) throws(VoiceError) {
        var byName: [String: Voice] = [:]
        // read(2) and readdir(3), not FileManager: its first use is felt in `speak TEXT`'s start.
        for directory in directories.map(\.path) {
            guard let names = FileSystem.names(in: directory) else { throw .unreadableDirectory(directory) }
            for name in names.sorted() where name.hasSuffix(".json") {
                let path = directory + "/" + name
                do {
                    let voice = try Voice(json: JSONValue(parsing: FileSystem.contents(of: path)))
                    byName[voice.name.lowercased()] = voice
                } catch {
                    throw .invalidFile(path, String(describing: error))
                }
            }
        }
        self.init(voices: Array(byName.values))
    }

    /// The shipped voices directory, found from the executable's own path (never the source tree):
    /// `PREFIX/share/speak/Voices` for an installed `PREFIX/bin/speak` or
    /// `PREFIX/libexec/speak/speak-full`, `Voices/` beside the executable, or the package's `Voices/`
    /// for an executable anywhere under a build tree's `.build/`.
    public static func shippedDirectory(executable: URL? = nil) -> URL? {
        // Paths as strings: URL's symlink and standardising machinery is felt in `speak TEXT`'s
        // start.
        let program = executable.map(\.path) ?? FileSystem.realPath("/proc/self/exe") ?? ""
        let bin = FileSystem.normalized(FileSystem.parent(of: program))
        let name = { (path: String) in String(path.split(separator: "/").last ?? "") }
        var candidates = [bin + "/../share/speak/Voices"]
        if name(bin) == "speak" && name(FileSystem.parent(of: bin)) == "libexec" {
            candidates.append(bin + "/../../share/speak/Voices")
        }
        candidates.append(bin + "/Voices")
        // A build tree: `.build/<triple>/<configuration>`, or under a scratch path such as
        // `.build/asan/<triple>/<configuration>`.
        var ancestor = bin
        while ancestor.count > 1 {
            ancestor = FileSystem.parent(of: ancestor)
            if name(ancestor) == ".build" {
                candidates.append(ancestor + "/../Voices")
                break
            }
        }
        return candidates.map(FileSystem.normalized).first(where: FileSystem.exists).map { URL(fileURLWithPath: $0) }
    }

    /// The voice named `name` (case-insensitive), or an error naming the closest voices.
    public func voice(named name: String) throws(VoiceError) -> Voice {
        // Names are usually asked for as they are written (lowercase): no lowercasing then.
        if let voice = byLowercasedName[name] ?? byLowercasedName[name.lowercased()] { return voice }
        // A name past the shown length is no typo of a voice's; comparing it would cost its length per voice.
        guard name.dropFirst(VoiceError.shownNameLength).isEmpty else { throw .unknown(name, suggestions: []) }
        throw .unknown(name, suggestions: closestMatches(to: name, among: voices.map(\.name), limit: 3))
    }

    /// One line a voice, as macOS `say -v '?'` prints them: name, language, engine, description,
    /// and, for a voice that cannot speak here yet, why (`status` gives it).
    public func listing(status: (Voice) -> String? = { _ in nil }) -> String {
        let width = max(20, (voices.map(\.name.count).max() ?? 0) + 1)
        return voices.map { voice in
            let name = voice.name.padded(to: width)
            let language = voice.language.padded(to: 8)
            let engine = voice.engine.padded(to: 9)
            let note = status(voice).map { " [\($0)]" } ?? ""
            return "\(name)\(language)\(engine)# \(voice.description)\(note)"
        }.joined(separator: "\n")
    }
}

public enum VoiceError: Error, Equatable, CustomStringConvertible {
    case unknown(String, suggestions: [String])
    case unreadableDirectory(String)
    case invalidFile(String, String)
    /// A voice whose engine settings do not decode: name, engine, reason.
    case invalidSettings(String, String, String)

    /// How much of a name an error shows: a request may send a megabyte of it.
    public static let shownNameLength = 100

    /// `name` as an error shows it: its first ``shownNameLength`` characters, `…` when cut.
    public static func shortened(_ name: String) -> String {
        name.dropFirst(shownNameLength).isEmpty ? name : name.prefix(shownNameLength) + "…"
    }

    public var description: String {
        switch self {
        case .unknown(let name, let suggestions):
            let hint =
                suggestions.isEmpty ? "" : "; did you mean \(suggestions.map { "'\($0)'" }.joined(separator: " or "))?"
            return "unknown voice '\(Self.shortened(name))'\(hint) (speak -v '?' lists voices)"
        case .unreadableDirectory(let path): return "cannot read voices directory \(path)"
        case .invalidFile(let path, let reason): return "invalid voice file \(path): \(reason)"
        case .invalidSettings(let name, let engine, let reason):
            return "voice '\(name)' has invalid '\(engine)' settings: \(reason)"
        }
    }
}
