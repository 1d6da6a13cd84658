import Foundation
import SpeakCLI
import SpeakKit
import SpeakPiper

/// `speak voices install`: makes a Piper voice a user brings speak here.
enum VoicesCommand {
    struct Arguments {
        var paths: [String] = []
        var name: String?
        var speaker: String?
        var models = PiperSynthesizer.userModelsDirectory()
        var voices = userVoicesDirectory()
    }

    static var flags: CommandFlags<Arguments> {
        CommandFlags(
            command: "speak voices",
            summary: """
                speak voices: manage neural (Piper) voices.

                usage: speak voices install FILE.onnx|DIR [--name NAME] [--speaker N|NAME]
                                          [--models-dir DIR] [--voices-dir DIR]

                Copies each Piper voice (NAME.onnx with NAME.onnx.json beside it; every one in DIR) as it
                is into --models-dir, saves it there as ONNX Runtime optimises it (faster to load) and
                split for first-sentence streaming when install-piper's tools are installed, and writes
                a voice file for it in --voices-dir. The original files are not changed. A config
                outside what a voice can hold (sample rate 8–48 kHz, 1–10,000 speakers, phoneme ids
                0–65,535, plain speaker names) or a model that is not whole or does not run is refused
                with exit 65, and nothing is installed.
                """,
            flags: [
                .value("--name", value: "NAME", help: "the voice's name (default: the model's: en_US-joe-medium → joe)")
                {
                    $0.name = $1
                },
                .value("--speaker", value: "N|NAME", help: "the speaker of a model with several (default: the first)") {
                    $0.speaker = $1
                },
                .value(
                    "--models-dir", value: "DIR",
                    help: "where the model goes (default $XDG_DATA_HOME/speak/models)"
                ) {
                    $0.models = URL(fileURLWithPath: $1)
                },
                .value(
                    "--voices-dir", value: "DIR",
                    help: "where the voice file goes (default $XDG_DATA_HOME/speak/voices)"
                ) {
                    $0.voices = URL(fileURLWithPath: $1)
                },
            ])
    }

    static func main(_ arguments: [String]) -> Int32 {
        runReporting {
            var remaining = arguments[...]
            guard let action = remaining.popFirst(), action != "-h", action != "--help" else {
                throw HelpRequested(text: flags.helpText)
            }
            guard action == "install" else { throw UsageError("unknown action '\(action)' (speak voices --help)") }
            var parsed = Arguments()
            try flags.scan(Array(remaining), into: &parsed) { $0.paths.append($1) }
            let (paths, name, speaker, models, voices) = (
                parsed.paths, parsed.name, parsed.speaker, parsed.models, parsed.voices
            )
            guard !paths.isEmpty else { throw UsageError("speak voices install needs a FILE.onnx or a directory") }
            if let name, name.isEmpty || name.hasPrefix(".") || name.hasPrefix("-") || name.contains("/") {
                // It names the voice file: it must stay one file in the voices directory.
                throw UsageError("--name must be a plain name (no '/', not starting with '.' or '-'), not '\(name)'")
            }
            let found = paths.map { ($0, PiperVoicePreparation.models(at: URL(fileURLWithPath: $0))) }
            if let (path, _) = found.first(where: { $0.1.isEmpty }) {
                throw InputError(code: .noInput, message: "no Piper voice (NAME.onnx with NAME.onnx.json) at \(path)")
            }
            let files = found.flatMap(\.1)
            if name != nil, files.count > 1 { throw UsageError("--name names one voice, not \(files.count)") }
            // Every config read before any voice is installed: one bad voice in a directory installs none.
            for file in files { _ = try config(of: file) }
            for file in files {
                let line = try install(file, name: name, speaker: speaker, models: models, voices: voices)
                print(line)
            }
        }
    }

    /// Copies `model` into `models`, writes its voice file, and returns the line that reports it.
    static func install(_ model: URL, name: String?, speaker: String?, models: URL, voices: URL) throws -> String {
        let config = try config(of: model)
        // Checked before anything is copied into the models directory.
        var speakerID = 0
        if let speaker {
            guard let id = Int(speaker) ?? config.speakerIDs[speaker], id >= 0, id < config.speakers else {
                let names = config.speakerIDs.keys.sorted().prefix(10).joined(separator: ", ")
                let known = "0–\(config.speakers - 1)" + (names.isEmpty ? "" : ": \(names)")
                throw UsageError("no speaker '\(speaker)' in \(model.lastPathComponent) (\(known))")
            }
            speakerID = id
        }
        // Made before the model is copied: a voices directory that cannot be made leaves no model behind.
        do {
            try FileSystem.makeDirectories(voices.path)
        } catch {
            throw InputError(code: .cannotCreate, message: "cannot make \(voices.path): \(error.description)")
        }
        let target = models.appendingPathComponent(model.lastPathComponent).standardizedFileURL
        let copied = target != model.standardizedFileURL && !FileManager.default.fileExists(atPath: target.path)
        let prepared: PiperVoicePreparation.Prepared
        do { prepared = try PiperVoicePreparation.prepare(model: model, into: models) } catch { throw reported(error) }
        let voiceName = name ?? defaultName(of: model)
        let language = config.language ?? config.espeakVoice
        let voice = Voice(
            name: voiceName, language: language, engine: PiperSynthesizer.engineName,
            description: "Piper voice \(prepared.model.deletingPathExtension().lastPathComponent)"
                + (config.speakers > 1 ? ", speaker \(speakerID) of \(config.speakers)" : "") + ".",
            settings: .object([
                "model": .string(prepared.model.lastPathComponent), "speaker": .number(Double(speakerID)),
            ]))
        try tryOut(voice, from: model, prepared: prepared, copied: copied)
        let file = voices.appendingPathComponent("\(voiceName).json")
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(voice).write(to: file, options: .atomic)
        } catch {
            throw InputError(code: .cannotCreate, message: "cannot write \(file.path): \(error.localizedDescription)")
        }
        return "installed voice '\(voiceName)' (\(language)): \(file.path) → \(prepared.model.path)"
    }

    static func reported(_ error: PiperError) -> InputError {
        switch error {
        case .cannotWrite: InputError(code: .cannotCreate, message: error.description)
        case .configMissing: InputError(code: .noInput, message: error.description)
        default: InputError(code: .dataError, message: error.description)
        }
    }

    static func config(of model: URL) throws -> PiperVoiceConfig {
        do { return try PiperVoiceConfig(contentsOf: PiperVoicePreparation.configFile(for: model)) } catch {
            throw reported(error)
        }
    }

    /// Speaks a word with the voice: a model can be whole as a file and still fail to run (one
    /// damaged weight fails a node), and the voice installed must speak. A damaged model is taken
    /// out of the models directory again when this install `copied` it there (never the user's own
    /// file, nor one an earlier install put there). Without the runtime here it cannot be tried,
    /// and is installed as before.
    static func tryOut(_ voice: Voice, from model: URL, prepared: PiperVoicePreparation.Prepared, copied: Bool) throws {
        do {
            try PiperSynthesizer(
                modelDirectories: [prepared.model.deletingLastPathComponent()], settings: .init(environment: .current)
            ).synthesize(
                "Hello.", options: SpeechOptions(voice: voice), onProgress: nil
            ) { _ in }
        } catch SynthesisError.modelDamaged(_, let reason) {
            if copied { PiperVoicePreparation.remove(prepared) }
            throw InputError(code: .dataError, message: "\(model.path) does not run: \(reason)")
        } catch {}
    }

    /// `en_US-joe-medium.onnx` → `joe`: Piper's LANG_REGION-NAME-QUALITY, else the file's name.
    static func defaultName(of model: URL) -> String {
        let parts = model.deletingPathExtension().lastPathComponent.split(separator: "-")
        return parts.count == 3 ? String(parts[1]) : model.deletingPathExtension().lastPathComponent
    }

    /// `$XDG_DATA_HOME/speak/voices`.
    static func userVoicesDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["XDG_DATA_HOME"], path.hasPrefix("/") {
            return URL(fileURLWithPath: path).appendingPathComponent("speak/voices")
        }
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        return home.appendingPathComponent(".local/share/speak/voices")
    }
}
