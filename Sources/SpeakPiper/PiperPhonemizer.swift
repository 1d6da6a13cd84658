import FoundationEssentials
import Glibc
import SpeakKit
// NFD as piper-tts applies it (unicodedata.normalize): the standard library's normaliser, which
// Foundation's decomposedStringWithCanonicalMapping needs all of Foundation for.
@_spi(_Unicode) import Swift

/// Text to the phonemes a Piper voice is fed, as piper-tts makes them: espeak-ng's IPA clause by
/// clause, `(lang)` switch flags removed, the clause's punctuation kept (with a space after `,`
/// `:` `;`), decomposed (NFD) into code points, grouped by sentence.
public enum PiperPhonemizer {
    /// One sentence's phonemes as its clauses, so a long sentence can be split at clause marks.
    public struct Sentence: Sendable, Equatable {
        public var clauses: [String]
        public var phonemes: String { clauses.joined() }
    }

    /// The sentences of `text`, phonemised with espeak-ng voice `voice` (e.g. `en-us`).
    public static func sentences(_ text: String, voice: String) throws -> [Sentence] {
        let clauses = try EspeakSynthesizer.shared().phonemeClauses(text, voice: voice)
        let english = voice.lowercased().hasPrefix("en")
        var sentences: [Sentence] = []
        var current: [String] = []
        for clause in clauses {
            var phonemes = removingLanguageFlags(clause.phonemes)
            if english { phonemes = asEspeak152English(phonemes) }
            phonemes += clause.terminator
            if [",", ":", ";"].contains(clause.terminator) { phonemes += " " }
            current.append(String(String.UnicodeScalarView(phonemes._nfd)))
            if clause.endsSentence {
                sentences.append(Sentence(clauses: current))
                current = []
            }
        }
        if !current.isEmpty { sentences.append(Sentence(clauses: current)) }
        return sentences.filter { !$0.phonemes.isEmpty }
    }

    /// Debian 12's espeak-ng 1.51 against the espeak-ng that piper-tts carries (and Piper's
    /// English voices were trained on), in English: `oː` (before `ɹ`) is `ɔː` there, and an
    /// /i/ before a vowel (across a word or syllable boundary) gets a glide `ʲ`: `ðɪʲ ˈɛnd`,
    /// `bˈiːʲɪŋ`, `pˌiːʲˈɛm`, but not in `iə` or in the diphthongs `aɪ eɪ ɔɪ`.
    static func asEspeak152English(_ phonemes: String) -> String {
        let scalars = Array(phonemes.unicodeScalars)
        var out = String.UnicodeScalarView()
        let vowels = Set("aæɑɒɔəɚɛɜɪiʊuʌoeɐᵻ".unicodeScalars)
        let diphthongStarts = Set("aeɔo".unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "o", index + 1 < scalars.count, scalars[index + 1] == "ː" {
                out.append("ɔ")
                index += 1
                continue
            }
            out.append(scalar)
            index += 1
            guard scalar == "i" || scalar == "ɪ", index == 1 || !diphthongStarts.contains(scalars[index - 2]) else {
                continue
            }
            if index < scalars.count, scalars[index] == "ː" {
                out.append("ː")
                index += 1
            }
            var next = index
            let spaced = next < scalars.count && scalars[next] == " "
            if spaced { next += 1 }
            let stressed = next < scalars.count && (scalars[next] == "ˈ" || scalars[next] == "ˌ")
            if stressed { next += 1 }
            guard next < scalars.count, vowels.contains(scalars[next]) else { continue }
            if !spaced, !stressed, scalars[next] == "ə" { continue }
            out.append("ʲ")
        }
        return String(out)
    }

    /// espeak-ng marks words it reads in another language with `(fr)` … `(en)`: Piper drops them.
    static func removingLanguageFlags(_ phonemes: String) -> String {
        guard phonemes.contains("(") else { return phonemes }
        return phonemes.replacing(/\([^)]+\)/, with: "")
    }
}
