import Testing

/// `-x` and `--ipa` ask the voice's engine for phonemes: one that shows none is a usage error.
@Suite("phonemes from an engine that shows none")
struct PhonemeRefusalTests {
    @Test("a Piper voice with -x or --ipa: one line naming the engine, exit 64", arguments: ["-x", "--ipa"])
    func refused(flag: String) throws {
        let result = try Speak.run(["-v", "joe", flag, "Hi"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "speak: -x and --ipa show espeak-ng's phonemes; 'joe' is a piper voice\n")
    }
}
