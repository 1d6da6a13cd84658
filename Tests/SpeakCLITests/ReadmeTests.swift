import Foundation
import Testing

/// README.md and the pages under Docs/ say what the built binaries do: the shell blocks marked
/// `<!-- runnable -->` run as written, every `speak …` command names only flags its `--help` lists,
/// every link to a page resolves, and the headline performance figures are the benchmark page's.
@Suite("README and Docs: commands that run, flags that exist, figures that match", .serialized)
final class ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL
    static let marker = "<!-- runnable -->"

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "speak-readme-\(UUID().uuidString.prefix(8))")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static var pages: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path))
        return (names ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }

    @Test("README.md fits on a few screens and links every page under Docs/, each of which exists")
    func lengthAndLinks() throws {
        let readme = try Self.read("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        #expect(Self.pages.count >= 8, "\(Self.pages)")
        for page in Self.pages { #expect(readme.contains("](\(page)"), "README.md does not link \(page)") }
        for file in ["README.md"] + Self.pages {
            let text = try Self.read(file)
            let base = file.split(separator: "/").dropLast().joined(separator: "/")
            for match in text.matches(of: /\]\(([^)#\s]+)(#[^)]*)?\)/) {
                let target = String(match.1)
                guard !target.contains("://") else { continue }
                let path = base.isEmpty ? target : base + "/" + target
                let resolved = Self.root.appendingPathComponent(path).standardizedFileURL.path
                #expect(FileManager.default.fileExists(atPath: resolved), "\(file) links \(target): no such file")
            }
        }
    }

    @Test("each README block marked runnable runs as written against the built binaries")
    func runnableBlocks() throws {
        let blocks = ShellBlock.all(in: try Self.read("README.md")).filter(\.runnable)
        #expect(blocks.count >= 3)
        let binaries = URL(fileURLWithPath: Speak.executable).deletingLastPathComponent().path
        var environment = Subprocess.isolated(nil)
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // No speaker needed: the runnable blocks write files, print or list.
        environment["HOME"] = directory.path
        for variable in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "SPEAK_VOICE"] {
            environment[variable] = nil
        }
        for block in blocks {
            let result = try Subprocess.run(
                "/bin/bash", ["-e", "-o", "pipefail", "-c", "cd \"$1\" && " + block.text, "bash", directory.path],
                environment: environment)
            #expect(result.status == 0, "README line \(block.line):\n\(block.text)\nsaid: \(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("reply.mp3").path))
    }

    @Test("every speak command in the README's and Docs' shell blocks names only flags its --help lists")
    func flagsExist() throws {
        var helps: [String: String] = [:]
        func help(_ command: [String]) throws -> String {
            let key = command.joined(separator: " ")
            if let text = helps[key] { return text }
            let result = try Speak.run(command + ["--help"])
            #expect(result.status == 0, "speak \(key) --help: \(result.stderr)")
            helps[key] = result.stdout
            return result.stdout
        }
        var checked = 0
        for file in ["README.md"] + Self.pages {
            for block in ShellBlock.all(in: try Self.read(file)) {
                for command in ShellBlock.speakCommands(in: block.text) {
                    let subcommand = command.first.flatMap { ShellBlock.subcommands[$0] }
                    let text = try help(subcommand ?? [])
                    for flag in command where flag.hasPrefix("-") && flag != "-" {
                        let name = String(flag.prefix { $0 != "=" })
                        checked += 1
                        #expect(
                            text.contains(name + " ") || text.contains(name + ",") || text.contains(name + "\n")
                                || text.contains(name + "]") || text.contains(name + "="),
                            "\(file), line \(block.line): \(name) is not in speak \((subcommand ?? []).joined()) --help"
                        )
                    }
                }
            }
        }
        #expect(checked > 40, "so few flags: the extraction broke")
    }

    @Test("Docs/cli.md's options table lists exactly the flags speak --help lists")
    func cliOptionsTable() throws {
        let help = try Speak.run(["--help"]).stdout
        let options = try #require(help.firstRange(of: "\noptions:\n")).upperBound
        let optionsEnd = help[options...].firstRange(of: "\n\n")?.lowerBound ?? help.endIndex
        // A flag line starts with its flags, then two spaces before the description; a
        // continuation line starts with its description.
        let helpFlags = help[options..<optionsEnd].split(separator: "\n").flatMap { line in
            let start = line.prefix { $0 == " " }.count
            guard start <= 6, line.dropFirst(start).hasPrefix("-") else { return [String]() }
            let column = line.dropFirst(start).firstRange(of: "  ").map { line[..<$0.lowerBound] } ?? line[...]
            return Self.flags(in: column)
        }
        let page = try Self.read("Docs/cli.md")
        let table = try #require(page.firstRange(of: "## Options\n")).upperBound
        let tableEnd = page[table...].firstRange(of: "\n\n")?.lowerBound ?? page.endIndex
        // The first cell of each row, without its aliases ("(also `--output-file`)").
        let cells = page[table..<tableEnd].split(separator: "\n").compactMap { row in
            row.hasPrefix("| ") ? row.dropFirst(2).prefix { $0 != "|" } : nil
        }
        let pageFlags = cells.flatMap { cell in
            Self.flags(in: cell.firstRange(of: "(also").map { cell[..<$0.lowerBound] } ?? cell)
        }
        #expect(helpFlags.count >= 30, "\(helpFlags)")
        #expect(Set(helpFlags).subtracting(pageFlags).sorted() == [], "in speak --help, not in Docs/cli.md's table")
        #expect(Set(pageFlags).subtracting(helpFlags).sorted() == [], "in Docs/cli.md's table, not in speak --help")
    }

    static func flags(in text: Substring) -> [String] {
        text.matches(of: /(?:^|[^\w-])(--?[a-z][a-z-]*)/).map { String($0.1) }
    }

    @Test("each ratio in the README's performance table is one Benchmarks/README.md reports")
    func headlineRatios() throws {
        let readme = try Self.read("README.md")
        let benchmarks = try Self.read("Benchmarks/README.md")
        let section = try #require(readme.firstRange(of: "## Performance")).upperBound
        let end = readme[section...].firstRange(of: "\n## ")?.lowerBound ?? readme.endIndex
        let ratios = readme[section..<end].matches(of: /\| ([0-9.]+(–[0-9.]+)?×) \|/).map { String($0.1) }
        #expect(ratios.count >= 6, "\(ratios)")
        for ratio in ratios {
            #expect(benchmarks.contains("**\(ratio)**"), "\(ratio) is not a result in Benchmarks/README.md")
        }
    }
}

/// A fenced ```sh block of a Markdown file.
struct ShellBlock {
    var text: String
    /// The line of its opening fence, from 1.
    var line: Int
    /// Preceded by `<!-- runnable -->` (blank lines between allowed).
    var runnable: Bool

    /// The subcommands with their own `--help`.
    static let subcommands: [String: [String]] = [
        "serve": ["serve"], "transcribe": ["transcribe"], "record": ["record"], "ask": ["ask"],
        "voices": ["voices"],
    ]

    static func all(in markdown: String) -> [ShellBlock] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [ShellBlock] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```sh" else {
                index += 1
                continue
            }
            let before = lines[..<index].last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(lines[index])
                index += 1
            }
            blocks.append(
                ShellBlock(
                    text: body.joined(separator: "\n") + "\n", line: start + 1,
                    runnable: before?.trimmingCharacters(in: .whitespaces) == ReadmeTests.marker))
            index += 1
        }
        return blocks
    }

    /// The words of each `speak …` command in `script`, after `speak`: simple commands split at
    /// unquoted `|`, `&`, `;`, redirections and parentheses; comments, quotes and line
    /// continuations as the shell reads them.
    static func speakCommands(in script: String) -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word: String?
        var quote: Character?
        var characters = Array(script)[...]
        func endWord() {
            if let finished = word { words.append(finished) }
            word = nil
        }
        func endCommand() {
            endWord()
            var rest = words[...]
            // Assignments and the shell's keywords before the command's name.
            while let first = rest.first,
                first.contains("=") && !first.hasPrefix("-") || ["do", "then", "else", "exec", "time"].contains(first)
            {
                rest = rest.dropFirst()
            }
            if let name = rest.first, name == "speak" || name.hasSuffix("/speak") {
                commands.append(Array(rest.dropFirst()))
            }
            words = []
        }
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"", let next = characters.popFirst() {
                    word = (word ?? "") + String(next)
                } else {
                    word = (word ?? "") + String(character)
                }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                word = word ?? ""
            case "\\":
                if let next = characters.popFirst(), next != "\n" { word = (word ?? "") + String(next) }
            case "#" where word == nil:
                while let next = characters.first, next != "\n" { characters = characters.dropFirst() }
            case " ", "\t": endWord()
            case "\n", "|", "&", ";", "(", ")": endCommand()
            case ">", "<":
                endWord()
                // The redirection's target is not a word of the command.
                while characters.first == ">" || characters.first == "&" { characters = characters.dropFirst() }
                while characters.first == " " { characters = characters.dropFirst() }
                while let next = characters.first, !" \n|&;".contains(next) { characters = characters.dropFirst() }
            default: word = (word ?? "") + String(character)
            }
        }
        endCommand()
        return commands
    }
}
