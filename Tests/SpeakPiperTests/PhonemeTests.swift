import Foundation
import SpeakKit
import Testing

@testable import SpeakPiper

@Suite("Piper phonemes")
struct PhonemeTests {
    static let texts = [
        "Hello, world. How are you? Fine!",
        "Wait: one; two three.",
        "The nightly backup finished successfully.",
        "He said \"Hi.\" Then he left.",
        "Well... maybe tomorrow.",
        "Title\n\nThe body of the text follows here.",
        "Please call Dr. Smith at 3 p.m. on Friday.",
        "The meeting moved to 10:30, room 4B.",
        "It costs $5.50, or about four euros.",
        "Is it ready yet? No, not yet!",
        "Deploy to production (the main cluster) now.",
        "Your report came in before noon.",
        "I can't believe it's already Thursday!",
        "The quick brown fox jumps over the lazy dog.",
        "Temperatures reach 25 degrees in the afternoon.",
        "She read the book, then she wrote a summary; it was good.",
        "The apple and the end of it: a very old idea.",
        "We are here to see each other, be it so.",
        "Fifty eight free oil drums and three apples, lucky us.",
        "Reality: create a video on the radio, with a piano.",
        "Being seen, seeing Leo is the only area of the museum.",
        "The city of lights has a happy ending at 9 a.m. or 5 p.m.",
        "I'd rather not. You'll see! Won't you?",
        "Error 404: the page at example dot com was not found.",
    ]

    /// Kept differences, with what speak feeds: none (`oː`/`ɔː`, the `ʲ` glide and a clause-final
    /// "one" are made to match).
    static let kept: [String: [String]] = [:]

    @Test("the phonemes are piper-tts' own, but for the differences listed")
    func matchPiperTTS() throws {
        let theirs = try PiperTTS.phonemes(Self.texts)
        #expect(theirs.count == Self.texts.count)
        for (text, expected) in zip(Self.texts, theirs) {
            let ours = try PiperPhonemizer.sentences(text, voice: "en-us").map(\.phonemes)
            if let kept = Self.kept[text] {
                #expect(ours == kept, "\(text.debugDescription)")
                #expect(expected != kept, "piper-tts now agrees on \(text.debugDescription): drop it from the list")
            } else {
                #expect(ours == expected, "\(text.debugDescription)")
            }
        }
    }

    @Test("long sentences are split after clauses; sentences stay whole")
    func pieces() throws {
        let sentences = try PiperPhonemizer.sentences(
            "One, two, three, four, five, six, seven, eight. Done.", voice: "en-us")
        #expect(sentences.count == 2)
        let whole = PiperPhonemizer.pieces(sentences, limit: 1000)
        #expect(whole == sentences.map(\.phonemes))
        let split = PiperPhonemizer.pieces(sentences, limit: 20)
        #expect(split.count > 3)
        #expect(split.dropLast().allSatisfy { $0.hasSuffix(",") || $0.hasSuffix(".") })
        #expect(split.joined(separator: " ") == sentences.map(\.phonemes).joined(separator: " "))
    }

    @Test("ordinary sentences of up to 25 words stay whole at the default limit, as Piper speaks them")
    func ordinarySentencesWhole() throws {
        for text in [
            "The front door has been open for ten minutes and the temperature outside is dropping fast tonight.",
            "Please remember that the meeting with the design team has been moved to Thursday afternoon at three"
                + " o'clock in the large conference room.",
        ] {
            let sentences = try PiperPhonemizer.sentences(text, voice: "en-us")
            #expect(PiperPhonemizer.pieces(sentences, limit: PiperSettings().pieceLimit).count == 1, "\(text)")
        }
    }

    /// 4,096 characters without a sentence break, as the issue's long requests sent them.
    static let longInputs: [(name: String, text: String)] = [
        ("digits", String((0..<4096).map { Character(String(($0 * 7 + $0 / 10) % 10)) })),
        ("emoji", String(repeating: "\u{1F600}", count: 4096)),
        ("one long word", String(repeating: "a", count: 4096)),
        ("words without punctuation", String(repeating: "the build went on and on ", count: 164)),
    ]

    @Test("text without sentence breaks is cut into bounded pieces at clause marks, then words; nothing is lost")
    func boundedPieces() throws {
        let limit = PiperSettings().pieceLimit
        for (name, text) in Self.longInputs {
            let sentences = try PiperPhonemizer.sentences(text, voice: "en-us")
            let pieces = PiperPhonemizer.pieces(sentences, limit: limit)
            #expect(pieces.count > 4, "\(name)")
            let longest = pieces.map(\.unicodeScalars.count).max() ?? 0
            #expect(longest <= limit, "\(name): a piece of \(longest)")
            let cuts = try Self.cuts(pieces, in: sentences)
            if name == "digits" || name == "words without punctuation" {
                // Words there are short: every cut is between words or clauses.
                #expect(cuts.allSatisfy { $0.atSpace || $0.atClauseEnd }, "\(name)")
            }
        }
    }

    @Test("pieces are 160 phoneme code points, fewer at slower rates; SPEAK_PIPER_PIECE sets 16–1000")
    func pieceLimit() {
        func limit(_ environment: [String: String]) -> Int {
            PiperSettings(environment: EnvironmentSettings(environment: environment)).pieceLimit
        }
        #expect(limit([:]) == 160)
        #expect(limit(["SPEAK_PIPER_PIECE": "200"]) == 200)
        for ignored in ["5", "2000", "many", ""] {
            #expect(limit(["SPEAK_PIPER_PIECE": ignored]) == 160)
        }
        #expect(PiperSynthesizer.pieceLimit(160, speed: 1) == 160)
        #expect(PiperSynthesizer.pieceLimit(160, speed: 4) == 160)
        #expect(PiperSynthesizer.pieceLimit(160, speed: 0.5) == 80)
        #expect(PiperSynthesizer.pieceLimit(160, speed: 0.01) == 16)
    }

    @Test("the Piper settings a composition hands over come from SPEAK_PIPER_SHRINK_ABOVE and SPEAK_PIPER_STREAM")
    func settingsFromEnvironment() {
        func settings(_ environment: [String: String]) -> PiperSettings {
            PiperSettings(environment: EnvironmentSettings(environment: environment))
        }
        #expect(settings([:]) == PiperSettings())
        #expect(
            settings(["SPEAK_PIPER_SHRINK_ABOVE": "0", "SPEAK_PIPER_STREAM": "0"])
                == PiperSettings(shrinkAbove: 0, streamsFirstSentence: false))
        #expect(settings(["SPEAK_PIPER_SHRINK_ABOVE": "-1", "SPEAK_PIPER_STREAM": "no"]) == PiperSettings())
    }

    @Test("a clause too long is cut between words, a word too long between phonemes, never inside one")
    func cutsWordsAndPhonemes() throws {
        let clause = "hˈɛloʊ wˈɜːld, "
        let long = PiperPhonemizer.Sentence(clauses: [
            clause, String(repeating: "ðə kwˈɪk bɹˈaʊn fˈɑːks ", count: 6) + ".",
        ])
        let pieces = PiperPhonemizer.pieces([long], limit: 40)
        #expect(pieces.first == "hˈɛloʊ wˈɜːld,", "the clause mark before the long clause is a cut")
        #expect(pieces.allSatisfy { $0.unicodeScalars.count <= 40 })
        let cuts = try Self.cuts(pieces, in: [long])
        #expect(cuts.allSatisfy { $0.atSpace || $0.atClauseEnd }, "\(pieces)")

        let word = PiperPhonemizer.Sentence(clauses: [String(repeating: "ɡɹˈɪnɪŋ", count: 20) + "kˈɑːː"])
        let parts = PiperPhonemizer.pieces([word], limit: 10)
        #expect(parts.allSatisfy { $0.unicodeScalars.count <= 10 })
        #expect(parts.joined() == word.phonemes)
        for part in parts {
            #expect(part.unicodeScalars.last != "ˈ", "a stress mark stays with its syllable: \(parts)")
            #expect(part.unicodeScalars.first != "ː", "a length mark stays with its vowel: \(parts)")
        }
    }

    struct Cut {
        /// Between two words.
        var atSpace: Bool
        /// Where espeak-ng ended a clause: at a clause mark, or where it cut a long clause itself.
        var atClauseEnd: Bool
    }

    /// Where `pieces` cut `sentences`, checking that they are its phonemes in order, less spaces at the cuts.
    static func cuts(_ pieces: [String], in sentences: [PiperPhonemizer.Sentence]) throws -> [Cut] {
        let clauses = sentences.flatMap(\.clauses).map { Array($0.unicodeScalars) }
        let whole = clauses.flatMap { $0 }
        let clauseEnds = Set(clauses.reduce(into: [0]) { ends, clause in ends.append(ends.last! + clause.count) })
        var position = 0
        var cuts: [Cut] = []
        for piece in pieces {
            let scalars = Array(piece.unicodeScalars)
            guard position + scalars.count <= whole.count, Array(whole[position..<position + scalars.count]) == scalars
            else {
                Issue.record("piece \(piece.debugDescription) is not the text at \(position)")
                throw CancellationError()
            }
            position += scalars.count
            if position < whole.count {
                let spaces = whole[position...].prefix { $0 == " " }.count
                let end = (position...position + spaces).contains { clauseEnds.contains($0) }
                cuts.append(Cut(atSpace: spaces > 0, atClauseEnd: end))
            }
            while position < whole.count, whole[position] == " " { position += 1 }
        }
        #expect(position == whole.count, "the pieces end \(whole.count - position) code points short")
        return cuts
    }
}
