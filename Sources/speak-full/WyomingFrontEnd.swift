import Foundation
import SpeakCLI
import SpeakKit
import SpeakPiper
import SpeakPocketSphinx
import SpeakWhisper
import SpeakWyoming

/// What the Wyoming server tells of speak-full's engines: which transcriber runs, in which
/// languages, and the named speakers of multi-speaker Piper voices.
enum WyomingFrontEnd {
    /// Whisper's languages, as faster-whisper (and so wyoming-faster-whisper) lists them.
    static let whisperLanguages = """
        af am ar as az ba be bg bn bo br bs ca cs cy da de el en es et eu fa fi fo fr gl gu ha haw he hi hr ht hu hy \
        id is it ja jw ka kk km kn ko la lb ln lo lt lv mg mi mk ml mn mr ms mt my ne nl nn no oc pa pl ps pt ro ru \
        sa sd si sk sl sn so sq sr su sv sw ta te tg th tk tl tr tt uk ur uz vi yi yo zh yue
        """.split(separator: " ").map(String.init)

    /// The Wyoming limits, changed by `SPEAK_WYOMING_LIMITS` (`connections=64,per-address=32,
    /// header-seconds=5,…`: see ``WyomingLimits``), for tuning and for tests that must not wait
    /// minutes for a timeout.
    static func limits(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> WyomingLimits {
        guard let text = environment["SPEAK_WYOMING_LIMITS"] else { return WyomingLimits() }
        switch Result(catching: { () throws(WyomingServerError) in try WyomingLimits(parsing: text) }) {
        case .success(let limits): return limits
        case .failure(let error): throw UsageError("SPEAK_WYOMING_LIMITS: \(error)")
        }
    }

    static func transcriberInfo(_ transcriber: any Transcriber) -> WyomingService.TranscriberInfo? {
        switch transcriber {
        case let whisper as WhisperTranscriber:
            let multilingual = (try? whisper.model.header().isMultilingual) ?? !whisper.model.name.hasSuffix(".en")
            return .init(
                description: "Whisper (whisper.cpp), model \(whisper.model.name)",
                model: whisper.model.name,
                languages: multilingual ? whisperLanguages : ["en"])
        case is UnavailableTranscriber:
            return nil
        case is PocketSphinxTranscriber, is TranscriberPool:
            return .init(
                description: "CMU pocketsphinx, US English", model: "en-us", languages: ["en"])
        default:
            return .init(description: "an OpenAI-compatible transcription server", model: "upstream", languages: [])
        }
    }

    /// A Piper voice's speakers by name, from its model's `.onnx.json`.
    static let piperSpeakers = WyomingService.Speakers(
        names: { voice in speakerIDs(of: voice).sorted { $0.value < $1.value }.map(\.key) },
        voice: { voice, speaker in
            guard let id = speakerIDs(of: voice)[speaker], case .object(var settings) = voice.settings else {
                return nil
            }
            settings["speaker"] = .number(Double(id))
            return voice.with(settings: .object(settings))
        })

    private static func speakerIDs(of voice: Voice) -> [String: Int] {
        guard voice.engine == PiperSynthesizer.engineName, let model = try? PiperSynthesizer().modelFile(for: voice),
            let config = try? PiperVoiceConfig(contentsOf: URL(fileURLWithPath: model.path + ".json")),
            config.speakers > 1
        else { return [:] }
        return config.speakerIDs
    }
}
