import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// Client mistakes are told apart from failures (issue 11, item 11): the command line says what
/// is wrong with a usage (64) or bad-data (65) exit, the server answers 400 naming the field.
@Suite("client mistakes: clear lines and 4xx, never 5xx")
final class ClientMistakeTests {
    static let samples = TranscriptionServerTests.samples
    let scratch: URL

    init() throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("speak-mistakes-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    /// Swift Testing runs it after each test: `scratch` goes with the test that made it.
    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// `speak ARGUMENTS` with raw bytes in the last argument (a Swift String cannot hold invalid UTF-8).
    func speak(_ arguments: [String], lastArgument bytes: [UInt8]) throws -> Subprocess.Result {
        let octal = bytes.map { "\\" + String($0, radix: 8) }.joined()
        let script = "exec \"$0\" \"$@\" \"$(printf '\(octal)')\""
        return try Subprocess.run("/bin/sh", ["-c", script, Speak.executable] + arguments)
    }

    @Test("speak: bad text and bad files each get one line saying what is wrong")
    func commandLine() throws {
        let output = scratch.appendingPathComponent("out.wav").path
        let notes = scratch.appendingPathComponent("notes.txt")
        try Data("Hello\0world".utf8).write(to: notes)
        let directory = scratch.appendingPathComponent("texts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let audioDirectory = scratch.appendingPathComponent("album.mp3")
        try FileManager.default.createDirectory(at: audioDirectory, withIntermediateDirectories: true)
        let cases: [([String], Data?, Int32, String)] = [
            (["-f", directory.path], nil, 66, "cannot read \(directory.path): it is a directory"),
            (["-f", "/dev/zero"], nil, 65, "text is more than 524288 bytes; speak takes at most 524288"),
            ([], Data("Hello\0world".utf8), 65, "text contains a NUL byte"),
            (["-f", notes.path], nil, 65, "text contains a NUL byte"),
            ([audioDirectory.path], nil, 66, "cannot play \(audioDirectory.path): it is a directory"),
            (["--play", directory.path], nil, 66, "cannot play \(directory.path): it is a directory"),
        ]
        for (arguments, input, status, message) in cases {
            let result = try Speak.run(arguments + ["-o", output], input: input)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("speak: \(message)"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        // Invalid UTF-8 in an argument is refused as on standard input.
        let latin1 = try speak(["-o", output], lastArgument: Array("caf".utf8) + [0xE9])
        #expect(latin1.status == 65, "\(latin1.stderr)")
        #expect(latin1.stderr == "speak: text is not UTF-8\n", "\(latin1.stderr)")
        // A file name that is not UTF-8 is refused as such: it is not the text, and repaired it
        // names another file (speak -o wrote caf\u{FFFD}.wav; transcribe found no such file).
        let name = Array(scratch.appendingPathComponent("caf").path.utf8) + [0xE9] + Array(".wav".utf8)
        let octal = name.map { "\\" + String($0, radix: 8) }.joined()
        let yes = ClientMistakeTests.samples.appendingPathComponent("yes.wav").path
        for command in [
            #""$0" -o "$name" Hello"#, #""$0" --output="$name" Hello"#, #""$0" transcribe "$name""#,
            #""$0" transcribe -o "$name" "$1""#,
        ] {
            let script = "name=\"$(printf '\(octal)')\"; exec " + command
            let result = try Subprocess.run("/bin/sh", ["-c", script, Speak.executable, yes])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(
                result.stderr.hasSuffix("is not UTF-8: speak takes UTF-8 names (rename the file)\n")
                    && result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).allSatisfy { !$0.contains("\u{FFFD}") })
        // A file name with a newline in it keeps the error to one line.
        for name in ["/nonexistent/a\nb.txt", "/nonexistent/a\r\nb.txt", "/nonexistent/a\rb.txt"] {
            let result = try Speak.run(["-f", name])
            #expect(result.status == 66, "\(result.stderr)")
            #expect(!result.stderr.dropLast().contains(where: { $0.isNewline }), "\(result.stderr.debugDescription)")
        }
    }

    @Test("a word ending in .mp3 is spoken when no such file exists; a file that is not audio says so")
    func mp3LookingText() throws {
        let output = scratch.appendingPathComponent("spoken.wav")
        let spoken = try Speak.run(["-o", output.path, "notes.mp3"])
        #expect(spoken.status == 0, "\(spoken.stderr)")
        #expect(try PCMBuffer(audio: Data(contentsOf: output)).duration > 0.5)
        let file = scratch.appendingPathComponent("notes.mp3")
        try Data("Dear diary".utf8).write(to: file)
        let refused = try Speak.run(["-o", output.path, file.path])
        #expect(refused.status == 65)
        #expect(refused.stderr == "speak: \(file.path): not an audio file: neither WAV nor MP3\n", "\(refused.stderr)")
    }

    @Test("speak transcribe: an unsupported language is a usage error naming it")
    func transcribeLanguage() throws {
        let file = Self.samples.appendingPathComponent("yes.wav").path
        // pocketsphinx's model is US English only (Whisper's base model does speak French).
        let result = try Speak.run(["transcribe", "--engine", "pocketsphinx", "--language", "fr", file])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("'fr'"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

/// The same mistakes sent to `speak serve`.
@Suite("speak serve: client mistakes are 400", .serialized)
final class ServerMistakeTests {
    let server: RunningServer
    let client: WireClient

    // pocketsphinx: its dictionary and its one language are what the transcription test checks.
    init() throws {
        server = try RunningServer(["--engine", "pocketsphinx"])
        client = WireClient(port: server.port, token: server.token)
    }

    func errorParam(_ answer: ServiceAnswer) -> String? { answer.errorField("param") }

    // Wrong JSON types and a NUL in the text are SpeechService's rules, tested in process
    // (ServiceErrorTests); a query's bytes are checked by the HTTP server before any route.
    @Test("a query with a NUL or that is not UTF-8 is 400; one in UTF-8 is spoken")
    func wrongQueries() throws {
        // Queries written out in the path: a String cannot hold bytes that are not UTF-8.
        let query = client.call("GET", "/speak?text=Hello%00world")
        #expect(query.status == 400, "\(query.text)")
        // Bytes that are not UTF-8 are not text: repaired, they were spoken as silence, with a 200.
        let notUTF8 = client.call("GET", "/speak?text=%ff%fe")
        #expect(notUTF8.status == 400 && notUTF8.errorMessage?.contains("not UTF-8") == true, "\(notUTF8.text)")
        let accented = client.call("GET", "/speak?text=Na%20gode%2C%20caf%C3%A9")
        #expect(accented.status == 200, "\(accented.text)")
    }

    /// `file` uploaded as note.wav (as audio/wav) unless named, with `fields` before it.
    func upload(
        _ fields: [(String, String)], file: URL, named name: String = "note.wav", type: String = "audio/wav",
        to server: RunningServer? = nil
    ) throws -> ServiceAnswer {
        let client = server.map { WireClient(port: $0.port, token: $0.token) } ?? client
        let part = MultipartBody.File(filename: name, contentType: type, data: try Data(contentsOf: file))
        return client.upload("/v1/audio/transcriptions", MultipartBody(fields: fields, files: [part]))
    }

    /// What `curl -F model=whisper-1 -F "file=<PATH"` sends: the file's bytes as a plain field,
    /// with no filename.
    func uploadAsField(_ file: URL) throws -> ServiceAnswer {
        let boundary = "plain-field-\(UUID().uuidString)"
        var body = Data(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n").utf8)
        body += try Data(contentsOf: file) + Data("\r\n--\(boundary)--\r\n".utf8)
        return client.call(
            "POST", "/v1/audio/transcriptions", body: body,
            headers: ["content-type": "multipart/form-data; boundary=\(boundary)"])
    }

    @Test("expect words not in the dictionary and an unsupported language are 400 naming them")
    func transcriptionOptions() throws {
        let file = ClientMistakeTests.samples.appendingPathComponent("yes.wav")
        let words = try upload([("model", "whisper-1"), ("expect", "yes|flibbertyzork")], file: file)
        #expect(words.status == 400, "\(words.text)")
        #expect(words.errorMessage?.contains("flibbertyzork") == true, "\(words.text)")
        #expect(errorParam(words) == "expect")
        let language = try upload([("model", "whisper-1"), ("language", "fr")], file: file)
        #expect(language.status == 400, "\(language.text)")
        #expect(language.errorMessage?.contains("'fr'") == true, "\(language.text)")
        #expect(errorParam(language) == "language")
        // The bytes as a plain field, no filename.
        let field = try uploadAsField(file)
        #expect(field.status == 400 && errorParam(field) == "file", "\(field.text)")
        #expect(field.errorMessage == "the 'file' part must be a file upload, with a filename", "\(field.text)")
        // The same past the 64 KiB a field may hold, as any real recording is.
        let big = server.directory.appendingPathComponent("big.wav")
        try Data(repeating: 0x61, count: 70_000).write(to: big)
        let bigField = try uploadAsField(big)
        #expect(bigField.status == 400 && errorParam(bigField) == "file", "\(bigField.text)")
        #expect(
            bigField.errorMessage?.hasSuffix("with a filename (curl -F 'file=@note.wav')") == true, "\(bigField.text)")
    }

    @Test("an upload longer than maximumAudioSeconds is 413 naming the limit, in WAV and in MP3")
    func tooLongUpload() throws {
        let config = server.directory.appendingPathComponent("one-second.json")
        try Data(#"{"maximumAudioSeconds": 1}"#.utf8).write(to: config)
        let strict = try RunningServer(["--engine", "pocketsphinx", "--config", config.path])
        for name in ["yes.wav", "yes.mp3"] {  // 1.7 s: read natively, and through FFmpeg
            let reply = try upload(
                [("model", "whisper-1")], file: ClientMistakeTests.samples.appendingPathComponent(name), named: name,
                type: "application/octet-stream", to: strict)
            #expect(reply.status == 413, "\(name): \(reply.text)")
            #expect(reply.errorMessage?.contains("longer than 1 s") == true, "\(name): \(reply.text)")
            #expect(errorParam(reply) == "file")
        }
        #expect(WireClient(port: strict.port).call("GET", "/health").status == 200, "the server goes on")
    }

    @Test("a WAV claiming a 1 Hz rate is 400 at once, and the server does not grow")
    func oneHertzUpload() throws {
        var wav = try Data(contentsOf: ClientMistakeTests.samples.appendingPathComponent("yes.wav"))
        for (offset, value) in [(24, 1), (28, 2)] {
            for byte in 0..<4 { wav[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        let file = server.directory.appendingPathComponent("one-hertz.wav")
        try wav.write(to: file)
        let before = try ServerFaultTests.peakMemory(of: server.process.pid)
        let reply = try upload([("model", "whisper-1")], file: file)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorMessage?.contains("sample rate 1 Hz") == true, "\(reply.text)")
        // Refused from the header: taken at its word, its 7.5 hours would be 870 MB at 16 kHz.
        let grown = try ServerFaultTests.peakMemory(of: server.process.pid) - before
        #expect(grown < 30 << 20, "peak RSS grew \(grown >> 20) MB")
    }
}
