import Foundation
import SpeakKit
import Testing

/// Which voice speaks without `-v`: set once by the user, as macOS users set the voice for `say`.
@Suite("choosing the default voice")
final class VoiceChoiceTests {
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "speak-voice-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = scratch.appendingPathComponent("config").path
        environment.removeValue(forKey: "SPEAK_VOICE")
        return environment.merging(extra) { $1 }
    }

    func ipa(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let result = try Speak.run(["--ipa"] + arguments + ["Na gode"], environment: environment)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("SPEAK_VOICE, then the config file's default, then espeak-ng's default; -v wins over both")
    func defaultVoice() throws {
        let plain = try ipa([], environment([:]))
        let nadia = try ipa(["-v", "nadia"], environment([:]))
        #expect(plain != nadia)
        #expect(try ipa([], environment(["SPEAK_VOICE": "nadia"])) == nadia)

        let config = scratch.appendingPathComponent("config/speak")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data(#"{"default": "nadia"}"#.utf8).write(to: config.appendingPathComponent("config.json"))
        #expect(try ipa([], environment([:])) == nadia)
        #expect(try ipa(["-v", "default"], environment([:])) == plain)
        #expect(try ipa([], environment(["SPEAK_VOICE": "default"])) == plain)
    }

    @Test("a config file that is not JSON is a one-line error naming it, not ignored; -v does not read it")
    func brokenConfig() throws {
        let config = scratch.appendingPathComponent("config/speak")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        for broken in [#"{"default": "nadia""#, #"["nadia"]"#, #"{"default": 3}"#] {
            try Data(broken.utf8).write(to: config.appendingPathComponent("config.json"))
            let result = try Speak.run(["--ipa", "Hi"], environment: environment([:]))
            #expect(result.status == 65, "\(broken): \(result.stderr)")
            #expect(result.stderr.contains("config.json") && result.stderr.split(separator: "\n").count == 1)
            #expect(try Speak.run(["--ipa", "-v", "nadia", "Hi"], environment: environment([:])).status == 0)
        }
    }

    @Test("an unknown default voice is the usual one-line error with suggestions")
    func unknownDefault() throws {
        let result = try Speak.run(["--ipa", "Hi"], environment: environment(["SPEAK_VOICE": "nadja"]))
        #expect(result.status == 64)
        #expect(result.stderr.contains("'nadia'"), "\(result.stderr)")
    }

    @Test("-v '?' names each voice's engine, from the light speak too")
    func listingShowsEngines() throws {
        try Data(
            #"{"name":"relay","language":"ha","upstream":{"api":"speak","url":"http://127.0.0.1:9","voice":"nadia"}}"#
                .utf8
        )
        .write(to: scratch.appendingPathComponent("relay.json"))
        let listed = try Speak.run(["--voices-dir", scratch.path, "-v", "?"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(try #require(lines.first { $0.hasPrefix("nadia ") }).contains(" espeak "))
        #expect(try #require(lines.first { $0.hasPrefix("relay ") }).contains(" upstream "))
    }
}
