internal import CEspeakNG
import FoundationEssentials
import Glibc

/// One clause of espeak-ng's IPA, as Piper's phonemiser sees it: the phonemes, the punctuation
/// that ended the clause (`.`, `?`, `!`, `,`, `:`, `;` or nothing), whether it ends a sentence,
/// and the text it was read from.
public struct EspeakPhonemeClause: Sendable, Equatable {
    public var phonemes: String
    public var terminator: String
    public var endsSentence: Bool
    public var text: String

    public init(phonemes: String, terminator: String, endsSentence: Bool, text: String = "") {
        self.phonemes = phonemes
        self.terminator = terminator
        self.endsSentence = endsSentence
        self.text = text
    }
}

extension EspeakSynthesizer {
    /// `text` as IPA, clause by clause, from `espeak_TextToPhonemes` in espeak-ng voice `voice`
    /// (e.g. `en-us`): what neural voices trained on espeak-ng phonemes (Piper's) are fed.
    ///
    /// espeak-ng 1.51 reports neither the clause's punctuation nor its type, and leaves the text
    /// pointer one character into the next clause (that character's phonemes are in the next
    /// clause all the same), so the punctuation is recovered from the text the clause consumed.
    ///
    /// With `linkingGlides`, the linking phoneme `;` that espeak-ng puts between an /i/ and a
    /// following vowel is written `ʲ`, as the espeak-ng that Piper's voices were trained on writes
    /// it (its IPA output ignores the `prevPh` condition that hides it): `ðɪʲ ˈɛnd`, `bˈiːʲɪŋ`.
    ///
    /// With `dictionaries` (a directory of compiled espeak-ng dictionaries, `en_dict`…), words are
    /// looked up there when it has the voice's dictionary, in espeak-ng's own otherwise.
    public func phonemeClauses(
        _ text: String, voice: String, linkingGlides: Bool = false, dictionaries: String? = nil
    ) throws -> [EspeakPhonemeClause] {
        let bytes = Array(text.utf8) + [0]
        let separator = Self.phonemeSeparator
        return try lock.withLock { () throws(EspeakError) -> [EspeakPhonemeClause] in
            if let dictionaries {
                try selectVoice(voice, dictionaries: dictionaries)
            } else {
                try selectVoice(voice)
            }
            resetTextReader()
            guard linkingGlides else { return clauses(bytes, mode: 0x02) }
            // The same text twice, phonemes separated: as IPA and as espeak-ng's own names,
            // which show the `;` that the IPA leaves out. The slots pair up one to one.
            var ipa = clauses(bytes, mode: 0x02 | Int32(separator.value) << 8)
            let names = clauses(bytes, mode: Int32(separator.value) << 8)
            for index in ipa.indices {
                let paired = names.count == ipa.count ? names[index].phonemes : nil
                ipa[index].phonemes = Self.withLinkingGlides(ipa[index].phonemes, names: paired)
            }
            return ipa
        }
    }

    /// espeak-ng's text reader keeps the character it read ahead, and SSML's state, from one call to
    /// the next, and only a synthesis starts it afresh: a synthesis stopped mid-text (a client gone)
    /// left "T" for the next text's phonemes (`tˈiː ðə tɹˈeɪn`). A synthesis of one space, with no
    /// one to hear it, resets it. Holds `lock`.
    private func resetTextReader() {
        _ = " ".withCString { api.Synth($0, 2, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil) }
    }

    /// Between phonemes in the two passes of `phonemeClauses`: a private-use character, which
    /// is in no phoneme's name.
    static let phonemeSeparator: Unicode.Scalar = "\u{E000}"

    /// The clauses of `bytes` (NUL-terminated UTF-8) in phoneme mode `mode`. Holds `lock`.
    private func clauses(_ bytes: [UInt8], mode: Int32) -> [EspeakPhonemeClause] {
        bytes.withUnsafeBufferPointer { buffer in
            let start = UnsafeRawPointer(buffer.baseAddress!)
            var clauses: [EspeakPhonemeClause] = []
            var pointer: UnsafeRawPointer? = start
            var readAhead = ""  // the first character of this clause, consumed with the one before
            while let before = pointer {
                let ipa = api.TextToPhonemes(&pointer, espeakCHARS_UTF8, mode).map { String(cString: $0) } ?? ""
                let end = pointer ?? start + (buffer.count - 1)
                let consumed = UnsafeBufferPointer(
                    start: before.assumingMemoryBound(to: UInt8.self), count: max(0, end - before))
                var text = String(decoding: consumed, as: UTF8.self)
                let (terminator, endsSentence) = Self.clauseEnd(text, readAhead: pointer != nil)
                text = readAhead + text
                readAhead = ""
                if pointer != nil, let last = text.unicodeScalars.popLast() { readAhead = String(last) }
                clauses.append(
                    EspeakPhonemeClause(
                        phonemes: ipa, terminator: terminator, endsSentence: endsSentence || pointer == nil, text: text)
                )
                if let next = pointer, next <= before { break }  // no progress: never loop
            }
            return clauses
        }
    }

    /// `ipa` (phonemes split by `phonemeSeparator`) joined, with `ʲ` where `names` (the same
    /// clause in espeak-ng's phoneme names, split alike) has the linking phoneme `;` and the IPA
    /// has nothing. A word whose slots do not pair up (an IPA name that starts with a modifier
    /// letter gets no separator) keeps its IPA as it is.
    static func withLinkingGlides(_ ipa: String, names: String?) -> String {
        // Split by code point: a separator must never fuse with the mark after it.
        func split(_ text: Substring.UnicodeScalarView, by separator: Unicode.Scalar) -> [Substring.UnicodeScalarView] {
            text.split(separator: separator, omittingEmptySubsequences: false)
        }
        let ipaWords = split(Substring(ipa).unicodeScalars, by: " ")
        let nameWords = names.map { split(Substring($0).unicodeScalars, by: " ") } ?? []
        var out = String.UnicodeScalarView()
        for (index, word) in ipaWords.enumerated() {
            if index > 0 { out.append(" ") }
            let slots = split(word, by: phonemeSeparator)
            let nameSlots = ipaWords.count == nameWords.count ? split(nameWords[index], by: phonemeSeparator) : []
            for (slot, slotIndex) in zip(slots, slots.indices) {
                out.append(contentsOf: slot)
                if slot.isEmpty, slots.count == nameSlots.count, String(nameSlots[slotIndex]) == ";" {
                    out.append("ʲ")
                }
            }
        }
        return String(out)
    }

    /// The punctuation that ends a clause whose text (plus, with `readAhead`, the next clause's
    /// first character) is `consumed`, as Piper's patched espeak-ng names it.
    static func clauseEnd(_ consumed: String, readAhead: Bool) -> (terminator: String, endsSentence: Bool) {
        var scalars = Array(consumed.unicodeScalars)
        if readAhead, !scalars.isEmpty { scalars.removeLast() }
        var newlines = 0
        let closers: Set<Unicode.Scalar> = ["\"", "'", ")", "]", "}", "”", "’", "»"]
        while let last = scalars.last, last.properties.isWhitespace || closers.contains(last) {
            if last == "\n" { newlines += 1 }
            scalars.removeLast()
        }
        guard let last = scalars.last else { return ("", newlines >= 2) }
        switch last {
        case ".":
            // An ellipsis ends no clause type Piper names.
            if scalars.count >= 2, scalars[scalars.count - 2] == "." { return ("", newlines >= 2) }
            return (".", true)
        case "?", "!":
            // A run such as `?!` takes its type from its first mark, as espeak-ng reads it.
            let run = scalars.reversed().prefix { $0 == "?" || $0 == "!" }
            return (String(run.last ?? last), true)
        case ",", ":", ";": return (String(last), false)
        // espeak-ng's "extended dashes" (en and em dash and their kin) end a clause as `;` does.
        case "\u{2013}", "\u{2014}", "\u{2E3A}", "\u{2E3B}", "\u{FE31}", "\u{FE32}": return (";", false)
        case "…": return ("", newlines >= 2)
        default: return ("", newlines >= 2)
        }
    }
}

extension EspeakSynthesizer {
    /// A voice file made by `makeDictionaryVoice`: its descriptor and the dictionary directory's,
    /// with the files they stood for, to notice if either number now names something else.
    private struct DictionaryVoice {
        var file: Int32
        var folder: Int32
        var identities: [UInt64]

        static func identity(_ descriptor: Int32) -> [UInt64]? {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return nil }
            return [UInt64(status.st_dev), UInt64(status.st_ino)]
        }

        var isIntact: Bool { (Self.identity(file) ?? []) + (Self.identity(folder) ?? []) == identities }
    }

    /// Voice files made by `selectVoice(_:dictionaries:)`, by voice and directory: open
    /// descriptors, kept for the process (a handful). Guarded by `lock`.
    nonisolated(unsafe) private static var dictionaryVoices: [String: DictionaryVoice] = [:]

    /// Selects `voice` reading its dictionary from `directory`: a copy of its voice file with a
    /// `dictionary` line naming `/proc/self/fd/N/<name>` (N a descriptor of `directory`)
    /// relative to espeak-ng's data, as espeak-ng looks dictionaries up there, in a name of at
    /// most 39 bytes. Selects `voice` as it is when `directory` lacks the dictionary or the name
    /// does not fit. Holds `lock`.
    func selectVoice(_ voice: String, dictionaries directory: String) throws(EspeakError) {
        let key = voice + "\u{0}" + directory
        if let made = Self.dictionaryVoices[key], made.isIntact {
            _ = try EspeakError.check(
                api.SetVoiceByFile("/proc/self/fd/\(made.file)").rawValue, "espeak_SetVoiceByFile(\"\(voice)\")")
            return
        }
        Self.dictionaryVoices[key] = nil  // descriptors that are no longer ours are left alone
        try selectVoice(voice)
        guard let made = makeDictionaryVoice(directory) else { return }
        Self.dictionaryVoices[key] = made
        _ = try EspeakError.check(
            api.SetVoiceByFile("/proc/self/fd/\(made.file)").rawValue, "espeak_SetVoiceByFile(\"\(voice)\")")
    }

    /// The voice file described at `selectVoice(_:dictionaries:)` for the voice selected, as an
    /// open descriptor of an unlinked file.
    private func makeDictionaryVoice(_ directory: String) -> DictionaryVoice? {
        var dataPointer: UnsafePointer<CChar>?
        _ = api.Info(&dataPointer)
        guard let dataPointer, let identifier = api.GetCurrentVoice()?.pointee.identifier else { return nil }
        let data = String(cString: dataPointer)
        let voiceText = ["lang", "voices"].lazy.compactMap { Self.read("\(data)/\($0)/\(String(cString: identifier))") }
            .first
        guard let voiceText, let name = Self.dictionaryName(voiceText),
            access("\(directory)/\(name)_dict", R_OK) == 0
        else { return nil }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        let depth = data.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + "proc/self/fd/\(folder)/\(name)"
        guard relative.utf8.count <= 39 else {
            close(folder)
            return nil
        }
        var template = Array("/tmp/speak-espeak-voice-XXXXXX".utf8CString)
        let file = mkstemp(&template)
        guard file >= 0 else {
            close(folder)
            return nil
        }
        unlink(template)
        let bytes = Array((voiceText + "\ndictionary \(relative)\n").utf8)
        guard write(file, bytes, bytes.count) == bytes.count,
            let identities = DictionaryVoice.identity(file).flatMap({ a in
                DictionaryVoice.identity(folder).map { a + $0 }
            })
        else {
            close(file)
            close(folder)
            return nil
        }
        return DictionaryVoice(file: file, folder: folder, identities: identities)
    }

    /// The dictionary a voice file reads: its `dictionary` line, else its first language up to `-`.
    static func dictionaryName(_ voiceFile: String) -> String? {
        var language: String?
        for line in voiceFile.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2 else { continue }
            if words[0] == "dictionary" { return String(words[1]) }
            if words[0] == "language", language == nil {
                language = String(words[1].prefix { $0 != "-" })
            }
        }
        return language
    }

    private static func read(_ path: String) -> String? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(file, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
