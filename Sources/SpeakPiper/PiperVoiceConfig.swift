import FoundationEssentials
import Glibc
import SpeakKit

/// A Piper voice's `.onnx.json`: what the model was trained on and how to run it.
public struct PiperVoiceConfig: Sendable, Equatable {
    public var sampleRate: Int
    /// The espeak-ng voice whose phonemes the model was trained on, e.g. `en-us`.
    public var espeakVoice: String
    /// Phoneme (one Unicode scalar) → id.
    public var phonemeIDs: [Unicode.Scalar: Int]
    public var noiseScale: Double
    public var lengthScale: Double
    public var noiseW: Double
    public var speakers: Int
    /// Speaker names → ids, for multi-speaker voices.
    public var speakerIDs: [String: Int]
    /// BCP 47 tag, e.g. `en-US`, when the config names one.
    public var language: String?

    /// Reads and checks the config at `url`.
    public init(contentsOf url: URL) throws(PiperError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .configMissing(url.deletingPathExtension().path) }
        let raw: Raw
        do { raw = try JSONDecoder().decode(Raw.self, from: data) } catch {
            let reason = (error as? DecodingError)?.summary ?? String(describing: error)
            throw .invalidConfig(url.path, "not a Piper voice config (\(reason))")
        }
        if let type = raw.phonemeType, type != "espeak" {
            throw .invalidConfig(url.path, "phoneme_type '\(type)' is not supported (only espeak)")
        }
        var ids: [Unicode.Scalar: Int] = [:]
        for (symbol, numbers) in raw.phonemeIDMap {
            let scalars = Array(symbol.unicodeScalars)
            // Phonemes are looked up a code point at a time; Piper's own maps only use those.
            guard scalars.count == 1, let id = numbers.first else {
                throw .invalidConfig(url.path, "phoneme '\(symbol)' is not one code point with one id")
            }
            guard Self.phonemeIDRange.contains(id) else {
                throw .invalidConfig(
                    url.path, "phoneme '\(symbol)' has id \(id), outside \(Self.shown(Self.phonemeIDRange))")
            }
            ids[scalars[0]] = id
        }
        for required: Unicode.Scalar in ["_", "^", "$"] where ids[required] == nil {
            throw .invalidConfig(url.path, "phoneme_id_map has no '\(required)'")
        }
        guard Self.sampleRateRange.contains(raw.audio.sampleRate) else {
            throw .invalidConfig(
                url.path, "sample_rate \(raw.audio.sampleRate) is outside \(Self.shown(Self.sampleRateRange)) Hz")
        }
        if let count = raw.numSpeakers, !Self.speakerRange.contains(count) {
            throw .invalidConfig(url.path, "num_speakers \(count) is outside \(Self.shown(Self.speakerRange))")
        }
        let names = raw.speakerIDMap ?? [:]
        guard names.count <= Self.speakerRange.upperBound else {
            throw .invalidConfig(
                url.path, "speaker_id_map has \(names.count) speakers, more than \(Self.speakerRange.upperBound)")
        }
        for (name, id) in names.sorted(by: { $0.key < $1.key }) {
            guard Self.isPlainSpeakerName(name) else {
                throw .invalidConfig(url.path, "speaker name '\(VoiceError.shortened(name))' is not a plain name")
            }
            guard Self.speakerIDRange.contains(id) else {
                throw .invalidConfig(
                    url.path, "speaker '\(name)' has id \(id), outside \(Self.shown(Self.speakerIDRange))")
            }
        }
        sampleRate = raw.audio.sampleRate
        espeakVoice = raw.espeak.voice
        phonemeIDs = ids
        noiseScale = raw.inference?.noiseScale ?? 0.667
        lengthScale = raw.inference?.lengthScale ?? 1
        noiseW = raw.inference?.noiseW ?? 0.8
        speakerIDs = raw.speakerIDMap ?? [:]
        speakers = max(raw.numSpeakers ?? 1, speakerIDs.count, 1)
        language = raw.language?.code.map { $0.replacing("_", with: "-") }
    }

    /// What a Piper voice can sensibly hold; a config outside it is damaged or made to harm.
    static let sampleRateRange = 8000...48000
    static let speakerRange = 1...10000
    static let speakerIDRange = 0...9999
    static let phonemeIDRange = 0...65535

    static func shown(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)–\(range.upperBound)" }

    /// A speaker name that can be shown and typed as it is: not empty, at most 100 characters, no
    /// path separator, not `.` or `..`, no control character.
    static func isPlainSpeakerName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && name != "." && name != ".." && !name.contains("/")
            && !name.contains("\\") && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The config as written; its keys are snake_case.
    private struct Raw: Decodable {
        struct Audio: Decodable {
            var sampleRate: Int
            enum CodingKeys: String, CodingKey { case sampleRate = "sample_rate" }
        }
        struct Espeak: Decodable { var voice: String }
        struct Inference: Decodable {
            var noiseScale: Double?
            var lengthScale: Double?
            var noiseW: Double?
            enum CodingKeys: String, CodingKey {
                case noiseScale = "noise_scale"
                case lengthScale = "length_scale"
                case noiseW = "noise_w"
            }
        }
        struct Language: Decodable { var code: String? }
        var audio: Audio
        var espeak: Espeak
        var inference: Inference?
        var phonemeType: String?
        var phonemeIDMap: [String: [Int]]
        var numSpeakers: Int?
        var speakerIDMap: [String: Int]?
        var language: Language?
        enum CodingKeys: String, CodingKey {
            case audio, espeak, inference
            case phonemeType = "phoneme_type"
            case phonemeIDMap = "phoneme_id_map"
            case numSpeakers = "num_speakers"
            case speakerIDMap = "speaker_id_map"
            case language
        }
    }
}
