import FoundationEssentials
import Glibc
import SpeakKit
// NFD as piper-tts applies it (unicodedata.normalize): the standard library's normaliser, which
// Foundation's decomposedStringWithCanonicalMapping needs all of Foundation for.
@_spi(_Unicode) import Swift

/// Text to the phonemes a Piper voice is fed, as piper-tts makes them: espeak-ng's IPA clause by
/// clause, `(lang)` switch flags removed, the clause's punctuation kept (with a space after `,`
/// `:` `;`), decomposed (NFD) into code points, grouped by sentence.
///
/// Piper's voices were trained on the espeak-ng that piper-tts carries (1.52-dev), which differs
/// from Debian 12's 1.51 in what it writes, not in how it reads the text: the linking `ʲ` after
/// an /i/ before a vowel (`EspeakSynthesizer.phonemeClauses(_:voice:linkingGlides:)`), and in
/// American English `ɔː` for the vowel of "four" where 1.51's phoneme table says `oː` (the same
/// phoneme, `o@`, renamed in the newer table), and a clause-final "one" (`unstressingFinalOne`).
public enum PiperPhonemizer {
    /// One sentence's phonemes as its clauses, so a long sentence can be split at clause marks.
    public struct Sentence: Sendable, Equatable {
        public var clauses: [String]
        public var phonemes: String { clauses.joined() }
    }

    /// The sentences of `text`, phonemised with espeak-ng voice `voice` (e.g. `en-us`).
    public static func sentences(_ text: String, voice: String) throws -> [Sentence] {
        let clauses = try EspeakSynthesizer.shared().phonemeClauses(
            text, voice: voice, linkingGlides: true, dictionaries: dictionaries)
        let american = voice.lowercased().hasPrefix("en-us")
        let english = voice.lowercased().hasPrefix("en")
        var sentences: [Sentence] = []
        var current: [String] = []
        for clause in clauses {
            var phonemes = removingLanguageFlags(clause.phonemes)
            if american { phonemes = phonemes.replacing("oː", with: "ɔː") }
            if english { phonemes = unstressingFinalOne(phonemes, text: clause.text) }
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

    /// The dictionaries of piper-tts' espeak-ng (`en_dict`, from Scripts/install-piper), where
    /// words such as "has been", "Boise" or "Kubernetes" read otherwise than in Debian's:
    /// `SPEAK_PIPER_DICTIONARIES`, else `share/speak/piper-espeak-ng` under the executable's
    /// prefix (`bin/speak`, `libexec/speak/speak-full`), else under /usr/local. Without them
    /// espeak-ng's own dictionaries are read.
    static let dictionaries: String? = {
        if let path = EnvironmentSettings.current.piperDictionaries { return path }
        var candidates: [String] = []
        var executable = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        if length > 0 {
            let directory = String(decoding: executable[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: "/").dropLast().joined(separator: "/")
            candidates += [
                "/\(directory)/../share/speak/piper-espeak-ng", "/\(directory)/../../share/speak/piper-espeak-ng",
            ]
        }
        candidates.append("/usr/local/share/speak/piper-espeak-ng")
        return candidates.first { access("\($0)/en_dict", R_OK) == 0 }
    }()

    /// English "one" and "ones" at the end of a clause (`$unstressend` in espeak-ng's en_list)
    /// take secondary stress in piper-tts' espeak-ng always ("One, two" is `wˌʌn, tˈuː`), in
    /// 1.51 only after a stressed word in the same clause: lowered here where 1.51 left it.
    static func unstressingFinalOne(_ phonemes: String, text: String) -> String {
        let inWord: (Character) -> Bool = { $0.isLetter || $0 == "'" || $0 == "’" }
        let lastWord = text.split(whereSeparator: \.isWhitespace).last.map {
            String($0.drop { !inWord($0) }.reversed().drop { !inWord($0) }.reversed()).lowercased()
        }
        guard let lastWord, ["one", "ones", "one's", "one’s"].contains(lastWord) else { return phonemes }
        for word in ["wˈʌn", "wˈʌnz"] where phonemes == word || phonemes.hasSuffix(" " + word) {
            let before = phonemes.dropLast(word.count)
            guard !before.contains("ˈ") else { return phonemes }
            return before + word.replacing("ˈ", with: "ˌ")
        }
        return phonemes
    }

    /// espeak-ng marks words it reads in another language with `(fr)` … `(en)`: Piper drops them.
    static func removingLanguageFlags(_ phonemes: String) -> String {
        guard phonemes.contains("(") else { return phonemes }
        return phonemes.replacing(/\([^)]+\)/, with: "")
    }
}
