import Foundation
import SpeakCLI
import Testing

/// One scanner reads every command's flags and writes its `--help` from the same declarations.
@Suite("command flags: one scanner, help made from the declarations")
struct CommandFlagsTests {
    struct Picked {
        var name: String?
        var loud = false
        var count = 0
        var words: [String] = []
    }

    static var flags: CommandFlags<Picked> {
        CommandFlags(
            command: "demo", summary: "demo: a test command.",
            flags: [
                .value("-n", "--name", "--called", value: "NAME", help: "a name\nover two lines") { $0.name = $1 },
                .switch("--loud", help: "loudly") { $0.loud = true },
                .number("--count", value: "N", in: 1...9, what: "count", help: "how many") { $0.count = $1 },
            ],
            epilogue: "examples: demo -n x")
    }

    static func scan(_ arguments: [String]) throws -> Picked {
        var picked = Picked()
        try flags.scan(arguments, into: &picked) { $0.words.append($1) }
        return picked
    }

    @Test("values given apart or with =, switches, operands in order, and -- ends the flags")
    func reads() throws {
        let picked = try Self.scan(["a", "-n", "x", "--count=3", "-", "--loud", "--", "--name", "b"])
        #expect(picked.name == "x" && picked.count == 3 && picked.loud)
        #expect(picked.words == ["a", "-", "--name", "b"])
        #expect(try Self.scan(["--called", "y"]).name == "y")
    }

    @Test(
        "each mistake is one line that says what is wrong",
        arguments: [
            (["--nme", "x"], "unknown option --nme; did you mean --name? (demo --help)"),
            (["--loud=yes"], "--loud takes no value"),
            (["-n"], "-n needs a value"),
            (["--count", "12"], "count must be a whole number from 1 to 9, not '12'"),
        ])
    func refuses(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try Self.scan(arguments) }
        do { _ = try Self.scan(arguments) } catch { #expect("\(error)" == message) }
    }

    @Test("--help lists every flag by the names it answers to, between the summary and the epilogue")
    func help() throws {
        var picked = Picked()
        let help = try #require(
            throws: HelpRequested.self,
            performing: { try Self.flags.scan(["--loud", "--help"], into: &picked) { _, _ in } }
        ).text
        #expect(
            help == """
                demo: a test command.

                options:
                  -n, --name NAME  a name
                                   over two lines
                                   (also --called)
                      --loud       loudly
                      --count N    how many
                  -h, --help       this help

                examples: demo -n x
                """)
    }

    /// Each subcommand's typo gets the flag it meant, and its help lists every flag it takes.
    @Test(
        "every subcommand suggests the flag a typo meant",
        arguments: [
            (["serve", "--rate-limt", "5"], "--rate-limit"),
            (["transcribe", "--temprature", "0", "x.wav"], "--temperature"),
            (["ask", "--time-out", "5", "Ready?"], "--timeout"),
            (["record", "--max-second", "3"], "--max-seconds"),
            (["voices", "install", "--speakr", "1", "x.onnx"], "--speaker"),
            (["--volum", "50", "Hi"], "--volume"),
        ])
    func suggests(arguments: [String], meant: String) throws {
        let result = try Speak.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean \(meant)?"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("--beam-size is taken by serve, transcribe and ask, from 1 to 8")
    func beamSize() throws {
        for command in [["serve"], ["transcribe", "x.wav"], ["ask", "Ready?"]] {
            let result = try Speak.run([command[0], "--beam-size", "9"] + command.dropFirst())
            #expect(result.status == 64 && result.stderr.contains("--beam-size must be a whole number from 1 to 8"))
            #expect(try Speak.run([command[0], "--help"]).stdout.contains("--beam-size N"))
        }
    }

    @Test("speak serve --help lists the flags it takes, --threads and --rate-limit too")
    func serveHelp() throws {
        let help = try Speak.run(["serve", "--help"]).stdout
        for flag in ["--threads N", "--rate-limit PER_MINUTE", "--workers N", "--engine", "--zeroconf-name NAME"] {
            #expect(help.contains("\n      \(flag)"), "\(flag) is not in speak serve --help")
        }
    }
}
