/// Voice names that no voice file has but users ask for, as data the engine's one resolver reads
/// (``SpeechEngine/chooseVoice(named:speaker:language:refusingUnavailable:speakerVoice:)``).
public enum VoiceAliases {
    /// OpenAI's voice names: each is answered by the most natural English voice here.
    public static let openAI: Set = [
        "alloy", "ash", "ballad", "cedar", "coral", "echo", "fable", "marin", "nova", "onyx", "sage", "shimmer",
        "verse",
    ]

    /// macOS's voice names, for the habit of `say -v Alex`: each picks the voice here closest to
    /// it, by language (the region, else the language alone), then by sex. Each name's language,
    /// and whether it is a female voice.
    private static let mac: [String: (language: String, female: Bool)] = {
        // (language, male voices, female voices)
        let table: [(String, [String], [String])] = [
            (
                "en-US", ["Alex", "Fred", "Tom", "Bruce", "Ralph", "Junior", "Aaron", "Evan", "Nathan"],
                ["Samantha", "Victoria", "Allison", "Ava", "Susan", "Agnes", "Kathy", "Princess", "Vicki", "Zoe"]
            ),
            ("en-GB", ["Daniel", "Arthur", "Oliver", "Jamie"], ["Kate", "Serena", "Stephanie", "Martha", "Fiona"]),
            ("en-AU", ["Lee", "Gordon"], ["Karen", "Catherine"]),
            ("en-IE", [], ["Moira"]), ("en-ZA", [], ["Tessa"]), ("en-IN", ["Rishi"], ["Veena"]),
            ("fr-FR", ["Thomas"], ["Audrey", "Aurelie", "Marie"]), ("fr-CA", ["Nicolas"], ["Amelie", "Chantal"]),
            ("de-DE", ["Markus", "Yannick", "Martin"], ["Anna", "Petra", "Helena"]),
            ("it-IT", ["Luca"], ["Alice", "Federica", "Paola"]),
            ("es-ES", ["Jorge"], ["Monica", "Marisol"]), ("es-MX", ["Juan"], ["Paulina", "Angelica"]),
            ("pt-BR", ["Felipe"], ["Luciana"]), ("pt-PT", [], ["Joana", "Catarina"]),
            ("nl-NL", ["Xander"], ["Claire"]), ("nl-BE", [], ["Ellen"]), ("nb-NO", [], ["Nora"]),
            ("sv-SE", ["Oskar"], ["Alva", "Klara"]), ("da-DK", ["Magnus"], ["Sara"]), ("fi-FI", ["Onni"], ["Satu"]),
            ("pl-PL", [], ["Zosia", "Ewa"]), ("ru-RU", ["Yuri"], ["Milena", "Katya"]), ("cs-CZ", [], ["Zuzana"]),
            ("sk-SK", [], ["Laura"]), ("hu-HU", [], ["Mariska"]), ("ro-RO", [], ["Ioana"]),
            ("el-GR", ["Nikos"], ["Melina"]), ("tr-TR", ["Cem"], ["Yelda"]), ("he-IL", [], ["Carmit"]),
            ("ar-SA", ["Maged", "Tarik"], []), ("hi-IN", [], ["Lekha"]), ("th-TH", [], ["Kanya"]),
            ("id-ID", [], ["Damayanti"]), ("ja-JP", ["Otoya"], ["Kyoko"]), ("ko-KR", [], ["Yuna"]),
            ("zh-CN", [], ["Ting-Ting", "Tingting"]), ("zh-HK", [], ["Sin-ji"]), ("zh-TW", [], ["Mei-Jia"]),
            ("uk-UA", [], ["Lesya"]), ("ca-ES", ["Jordi"], ["Montse"]),
        ]
        var voices: [String: (language: String, female: Bool)] = [:]
        for (language, male, female) in table {
            for name in male { voices[name.lowercased()] = (language, false) }
            for name in female { voices[name.lowercased()] = (language, true) }
        }
        return voices
    }()

    /// The voice among `candidates` (those that can speak here) closest to the Mac voice `name`,
    /// and a note saying so; `nil` if `name` is no Mac voice. A Mac voice whose language no
    /// candidate speaks is refused.
    static func closest(toMac name: String, among candidates: [Voice]) throws(VoiceRefusal) -> (Voice, String)? {
        guard let wanted = mac[name.lowercased()] else { return nil }
        func primary(_ tag: String) -> Substring { tag.prefix { $0 != "-" && $0 != "_" } }
        func languageScore(_ voice: Voice) -> Int {
            let language = voice.language.lowercased()
            if language == wanted.language.lowercased() { return 2 }
            return primary(language) == primary(wanted.language.lowercased()) ? 1 : 0
        }
        func sexScore(_ voice: Voice) -> Int {
            guard let female = isFemale(voice) else { return 1 }
            return female == wanted.female ? 2 : 0
        }
        func score(_ voice: Voice) -> (Int, Int) { (languageScore(voice), sexScore(voice)) }
        // The first of the best, so ties go by the catalog's order.
        let best = candidates.filter { languageScore($0) > 0 }.enumerated().max { left, right in
            let (leftScore, rightScore) = (score(left.element), score(right.element))
            return leftScore != rightScore ? leftScore < rightScore : left.offset > right.offset
        }?.element
        let about = "'\(name)' is a macOS voice (\(wanted.language), \(wanted.female ? "female" : "male"))"
        guard let best else { throw .macVoiceUnspoken("\(about); no voice here speaks \(primary(wanted.language))") }
        return (best, "\(about): speaking with '\(best.name)' (\(best.language)), the closest here")
    }

    /// An espeak-ng voice's sex by its variant (`f3` female, `m3` or none male); `nil` when unknown.
    private static func isFemale(_ voice: Voice) -> Bool? {
        guard voice.engine == Voice.defaultEngine else { return nil }
        guard case .object(let settings) = voice.settings, case .string(let variant)? = settings["variant"] else {
            return false
        }
        return variant.lowercased().hasPrefix("f")
    }
}
