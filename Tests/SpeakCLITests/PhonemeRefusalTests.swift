import Testing

/// `-x` and `--ipa` ask the voice's engine for phonemes: one that shows none is a usage error.
@Suite("phonemes of a Piper voice")
struct PhonemeRefusalTests {
    @Test("a Piper voice with -x: one line naming the engine, exit 64")
    func mnemonicsRefused() throws {
        let result = try Speak.run(["-v", "joe", "-x", "Hi"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "speak: -x shows espeak-ng's phoneme mnemonics; 'joe' is a piper voice\n")
    }

    @Test("a Piper voice with --ipa: the phonemes the model is fed, a sentence a line, as piper-tts makes them")
    func ipaShowsWhatTheModelIsFed() throws {
        let result = try Speak.run(["-v", "joe", "--ipa", "The four normal batteries. Is it on?"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ðə fˈɔːɹ nˈɔːɹməl bˈæɾɚɹiz.\nɪz ɪɾ ˈɔn?\n")
    }
}
