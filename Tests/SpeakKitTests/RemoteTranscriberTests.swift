import Foundation
import Testing

@testable import SpeakKit
@testable import SpeakUpstream

/// `whisper_server.py` on a free port, for one test: it answers as the URL's first path component
/// says and logs every upload it receives.
final class WhisperFixture {
    struct Upload {
        struct File {
            var name: String
            var filename: String
            var contentType: String
            var size: Int
            var isMP3: Bool
        }
        var path: String
        var authorization: String?
        var contentType: String
        var fields: [String: String]
        var files: [File]
    }

    private let server: FixtureServer
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "whisper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try FixtureServer(
            script: "whisper_server.py", arguments: [directory.appending(path: "requests.log").path])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func url(_ scenario: String) -> String { "http://127.0.0.1:\(server.port)/\(scenario)" }

    /// A file holding `RemoteTranscriberTests.key`, for `keyFile`.
    lazy var keyFile: String = FixtureServer.keyFile(in: directory, key: RemoteTranscriberTests.key)

    var uploads: [Upload] {
        let log = (try? String(contentsOf: directory.appending(path: "requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map { line in
            let object = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let files = (object["files"] as! [[String: Any]]).map { file in
                Upload.File(
                    name: file["name"] as! String, filename: file["filename"] as! String,
                    contentType: file["content_type"] as! String,
                    size: file["size"] as! Int, isMP3: file["mp3"] as! Bool)
            }
            return Upload(
                path: object["path"] as! String, authorization: object["authorization"] as? String,
                contentType: object["content_type"] as! String, fields: object["fields"] as! [String: String],
                files: files)
        }
    }
}

@Suite("Remote transcriber")
struct RemoteTranscriberTests {
    static let key = UpstreamClientTests.key

    static func upstream(
        _ fixture: WhisperFixture, _ scenario: String, api: TranscriptionUpstream.API = .openai,
        format: TranscriptionUpstream.ResponseFormat? = nil
    ) -> TranscriptionUpstream {
        TranscriptionUpstream(
            api: api, url: fixture.url(scenario), keyFile: fixture.keyFile,
            responseFormat: format)
    }

    static func transcriber(
        _ upstream: TranscriptionUpstream, maxUploadBytes: Int = RemoteTranscriber.defaultMaxUploadBytes
    )
        -> RemoteTranscriber
    {
        RemoteTranscriber(upstream: upstream, maxUploadBytes: maxUploadBytes, maxAttempts: 3, baseDelay: 0.01)
    }

    /// espeak-ng's speech, resampled from its 22050 Hz to the 16 kHz a recording has.
    static func speech(_ text: String) throws -> [Int16] {
        let synthesizer = try EspeakSynthesizer.shared()
        var resampler = Resampler(inputRate: synthesizer.sampleRate, outputRate: 16000)
        var samples: [Int16] = []
        try synthesizer.synthesize(text, options: SpeechOptions(voice: VoiceCatalog.builtInDefault)) {
            samples += resampler.process($0)
        }
        return samples + resampler.finish()
    }

    static let hello = Result { PCMBuffer(sampleRate: 16000, samples: try speech("Hello there.")) }

    @Test("OpenAI: the MP3, model, ISO language, prompt with the expected phrases, and the key")
    func openAIFields() throws {
        let fixture = try WhisperFixture()
        let audio = try Self.hello.get()
        let options = TranscriptionOptions(
            language: "en-us", prompt: "A greeting.", expectedPhrases: ["Piece 1 of 2", "Piece 1", "no"])
        let (transcript, notices) = try Self.transcriber(Self.upstream(fixture, "ok")).transcribeWithReport(
            audio, options: options)
        // The API heard "piece 1"; the answer is the phrase it matches, as a local Whisper gives it.
        #expect(transcript == Transcript(text: "Piece 1", duration: audio.duration))
        #expect(notices.count == 1)
        let unmatched = try Self.transcriber(Self.upstream(fixture, "ok")).transcribe(
            audio, options: TranscriptionOptions(expectedPhrases: ["yes", "no"]))
        #expect(unmatched.text == "", "none of the phrases: nothing, as --expect promises")
        let uploads = fixture.uploads
        try #require(uploads.count == 2)
        #expect(uploads[0].path == "/ok/v1/audio/transcriptions")
        #expect(uploads[0].authorization == "Bearer \(Self.key)")
        #expect(uploads[0].contentType.hasPrefix("multipart/form-data; boundary="))
        #expect(
            uploads[0].fields == [
                "model": "whisper-large-v3-turbo", "response_format": "json", "language": "en",
                "prompt": "A greeting. Piece 1 of 2, Piece 1, no",
            ])
        try #require(uploads[0].files.count == 1)
        let file = uploads[0].files[0]
        #expect(file.name == "file" && file.filename == "audio.mp3" && file.contentType == "audio/mpeg" && file.isMP3)
        // 32 kbps is 4000 bytes a second, plus LAME's delay and flush.
        #expect(abs(file.size - Int(audio.duration * 4000)) < 1024, "\(file.size) bytes for \(audio.duration) s")
    }

    @Test("OpenAI: the configured model; no language or prompt fields when there are none")
    func openAIOptionalFields() throws {
        let fixture = try WhisperFixture()
        var upstream = Self.upstream(fixture, "ok", format: .text)
        upstream.model = "whisper-large-v3"
        _ = try Self.transcriber(upstream).transcribe(try Self.hello.get(), options: TranscriptionOptions())
        #expect(fixture.uploads.map(\.fields) == [["model": "whisper-large-v3", "response_format": "text"]])
    }

    @Test("translation: OpenAI's /v1/audio/translations on both APIs, with prompt and temperature")
    func translation() throws {
        let fixture = try WhisperFixture()
        let options = TranscriptionOptions(language: "de", prompt: "Im Park.", temperature: 0.2, translate: true)
        for api in [TranscriptionUpstream.API.openai, .speak] {
            var upstream = Self.upstream(fixture, "ok")
            upstream.api = api
            _ = try Self.transcriber(upstream).transcribe(try Self.hello.get(), options: options)
        }
        let uploads = fixture.uploads
        try #require(uploads.count == 2)
        #expect(uploads.map(\.path) == ["/ok/v1/audio/translations", "/ok/v1/audio/translations"])
        #expect(
            uploads[0].fields == [
                "model": "whisper-large-v3-turbo", "response_format": "json", "prompt": "Im Park.",
                "temperature": "0.2",
            ])
        // Another speak serve is told the language spoken too, which its Whisper takes as a hint.
        #expect(uploads[1].fields == ["language": "de", "prompt": "Im Park.", "temperature": "0.2"])
    }

    @Test(
        "speak: POST /api/transcribe with language, prompt and file; the token from a key file; no billing notice"
    )
    func speakAPI() throws {
        let fixture = try WhisperFixture()
        let keyFile = FileManager.default.temporaryDirectory.appending(path: "key-\(UUID().uuidString)")
        try "user-token-1\n".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let upstream = TranscriptionUpstream(
            api: .speak, url: fixture.url("ok") + "/", keyFile: keyFile.path, responseFormat: .text)
        let audio = try Self.hello.get()
        let (transcript, notices) = try Self.transcriber(upstream).transcribeWithReport(
            audio, options: TranscriptionOptions(language: "ha", prompt: "Sannu."))
        #expect(transcript.text == "piece 1")
        #expect(notices.isEmpty)
        let uploads = fixture.uploads
        try #require(uploads.count == 1)
        #expect(uploads[0].path == "/ok/api/transcribe")
        #expect(uploads[0].authorization == "Bearer user-token-1")
        // speak serve's /api/transcribe hands the prompt to its Whisper.
        #expect(uploads[0].fields == ["language": "ha", "prompt": "Sannu."])
        #expect(uploads[0].files.map(\.filename) == ["audio.mp3"])
        #expect(uploads[0].files.first?.isMP3 == true)
    }

    @Test("each response format is read into a transcript", arguments: TranscriptionUpstream.ResponseFormat.allCases)
    func responseFormats(format: TranscriptionUpstream.ResponseFormat) throws {
        let fixture = try WhisperFixture()
        let audio = try Self.hello.get()
        let transcript = try Self.transcriber(Self.upstream(fixture, "ok", format: format)).transcribe(
            audio, options: .init())
        #expect(fixture.uploads.first?.fields["response_format"] == format.rawValue)
        #expect(transcript.duration == audio.duration)
        switch format {
        case .json, .text:
            #expect(transcript == Transcript(text: "piece 1", duration: audio.duration))
        case .verboseJSON:
            #expect(transcript.text == "piece 1 end")
            #expect(transcript.segments.map(\.text) == ["piece 1", "end"])
            #expect(transcript.segments.first?.start == 0)
            #expect(transcript.segments.last?.end ?? 0 > 0)
        }
    }

    @Test("over the upload limit: cut at the silence, every upload under the limit, texts joined in order")
    func splitsAtSilence() throws {
        let fixture = try WhisperFixture()
        let first = try Self.speech("The quick brown fox jumps over the lazy dog.")
        let second = try Self.speech("Pack my box with five dozen liquor jugs.")
        let gap = 16000
        let audio = PCMBuffer(sampleRate: 16000, samples: first + [Int16](repeating: 0, count: gap) + second)
        let quiet =
            try #require(PCMBuffer(sampleRate: 16000, samples: first).audibleSpan(threshold: 0.01)).upperBound..<first
            .count + gap
            + (try #require(PCMBuffer(sampleRate: 16000, samples: second).audibleSpan(threshold: 0.01))).lowerBound
        let limit = Int(audio.duration * 4000) * 2 / 3
        let transcriber = Self.transcriber(Self.upstream(fixture, "ok", format: .verboseJSON), maxUploadBytes: limit)
        let (transcript, notices) = try transcriber.transcribeWithReport(audio, options: .init())

        let uploads = fixture.uploads
        try #require(uploads.count == 2)
        for upload in uploads {
            #expect(upload.files.first.map { $0.size <= limit } == true, "\(upload.files) over \(limit)")
        }
        #expect(transcript.text == "piece 1 end piece 2 end")
        #expect(transcript.duration == audio.duration)
        #expect(transcript.segments.map(\.text) == ["piece 1", "end", "piece 2", "end"])
        // The second piece's segments start where it was cut: inside the silence.
        let cut = Int((transcript.segments[2].start * 16000).rounded())
        #expect(quiet.contains(cut), "cut at \(cut), silence \(quiet)")
        #expect(transcript.segments[2].start > transcript.segments[1].end - 0.5)
        #expect(notices.count == 2 && notices.allSatisfy { $0.contains("piece") && $0.contains("10 s") })
    }

    @Test("a cut moves from the even point to the quietest 20 ms within reach")
    func cutFindsSilence() {
        // Loud noise with a 20 ms hush at 40 % of the way: one cut, pulled there from 50 %.
        var generator = SystemRandomNumberGenerator()
        var samples = (0..<10000).map { _ in Int16.random(in: -8000...8000, using: &generator) }
        for index in 3900..<4220 { samples[index] = Int16.random(in: -50...50, using: &generator) }
        let pieces = RemoteTranscriber.cut(0..<10000, of: samples, maxLength: 6000, window: 320)
        #expect(pieces.count == 2)
        #expect((3950...4170).contains(pieces[0].upperBound), "\(pieces)")
        #expect(pieces[0].upperBound == pieces[1].lowerBound && pieces[1].upperBound == 10000)

        // The hush out of reach of a piece that must fit: the cut stays where the limit allows.
        let tight = RemoteTranscriber.cut(0..<10000, of: samples, maxLength: 5100, window: 320)
        #expect(tight.allSatisfy { $0.count <= 5100 }, "\(tight)")
        #expect(RemoteTranscriber.cut(0..<10000, of: samples, maxLength: 10000, window: 320) == [0..<10000])
        let three = RemoteTranscriber.cut(0..<10000, of: samples, maxLength: 3400, window: 320)
        #expect(three.count == 3 && three.allSatisfy { $0.count <= 3400 }, "\(three)")
    }

    @Test("a request of 10 s or more gets no billing notice")
    func noNoticeFromTenSeconds() throws {
        let fixture = try WhisperFixture()
        let hiss = (0..<160_500).map { _ in Int16.random(in: -300...300) }
        let (_, notices) = try Self.transcriber(Self.upstream(fixture, "ok"))
            .transcribeWithReport(PCMBuffer(sampleRate: 16000, samples: hiss), options: .init())
        #expect(notices.isEmpty)
        #expect(fixture.uploads.count == 1)
    }

    @Test("under 0.01 s is refused before anything is sent", arguments: [0, 159])
    func tooShort(samples: Int) throws {
        let fixture = try WhisperFixture()
        let audio = PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 1000, count: samples))
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "ok")).transcribe(audio, options: .init())
        }
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("too short") == true)
        #expect(fixture.uploads.isEmpty)
        // 160 samples is exactly the minimum.
        _ = try Self.transcriber(Self.upstream(fixture, "ok")).transcribe(
            PCMBuffer(sampleRate: 16000, samples: [Int16](repeating: 1000, count: 160)), options: .init())
        #expect(fixture.uploads.count == 1)
    }

    @Test("503 is retried until it succeeds")
    func retriesServiceUnavailable() throws {
        let fixture = try WhisperFixture()
        let transcript = try Self.transcriber(Self.upstream(fixture, "fail503x2")).transcribe(
            try Self.hello.get(), options: .init())
        #expect(transcript.text == "piece 3")
        #expect(fixture.uploads.count == 3)
    }

    @Test("429 waits for Retry-After, then the transcript arrives")
    func honoursRetryAfter() throws {
        let fixture = try WhisperFixture()
        let start = Date()
        let transcript = try Self.transcriber(Self.upstream(fixture, "ratelimit1")).transcribe(
            try Self.hello.get(), options: .init())
        #expect(transcript.text == "piece 2")
        #expect(Date().timeIntervalSince(start) >= 1)
        #expect(fixture.uploads.count == 2)
    }

    @Test("an upload limit too small for any MP3 is refused before anything is sent")
    func limitTooSmall() throws {
        let fixture = try WhisperFixture()
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "ok"), maxUploadBytes: 1000).transcribe(
                try Self.hello.get(), options: .init())
        }
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("too small") == true)
        #expect(fixture.uploads.isEmpty)
    }

    @Test("a piece that fails after the others: the error names it and stays retryable")
    func failingPiece() throws {
        let fixture = try WhisperFixture()
        let audio = PCMBuffer(sampleRate: 16000, samples: (0..<48000).map { _ in Int16.random(in: -3000...3000) })
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "fail503x9"), maxUploadBytes: 10_000).transcribe(
                audio, options: .init())
        }
        #expect(error?.message.hasPrefix("piece 1 of 2: ") == true, "\(String(describing: error))")
        #expect(error?.isRetryable == true)
    }

    @Test("503 on every attempt: a retryable error, so the caller keeps the recording")
    func givesUpRetryably() throws {
        let fixture = try WhisperFixture()
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "fail503x9")).transcribe(try Self.hello.get(), options: .init())
        }
        #expect(error?.status == 503)
        #expect(error?.isRetryable == true)
        #expect(fixture.uploads.count == 3)
    }

    @Test("401 is not retried")
    func unauthorizedIsFinal() throws {
        let fixture = try WhisperFixture()
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "status401")).transcribe(try Self.hello.get(), options: .init())
        }
        #expect(error?.status == 401)
        #expect(error?.isRetryable == false)
        #expect(fixture.uploads.count == 1)
    }

    @Test(
        "a reply that is not a transcript is rejected and not retried",
        arguments: TranscriptionUpstream.ResponseFormat.allCases)
    func rejectsHTML(format: TranscriptionUpstream.ResponseFormat) throws {
        let fixture = try WhisperFixture()
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(Self.upstream(fixture, "html", format: format)).transcribe(
                try Self.hello.get(), options: .init())
        }
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("not a transcript") == true)
        #expect(fixture.uploads.count == 1)
    }

    @Test("nothing listening: a retryable error")
    func connectionRefused() throws {
        let upstream = TranscriptionUpstream(api: .openai, url: "http://127.0.0.1:1")
        let error = #expect(throws: TranscriptionError.self) {
            try Self.transcriber(upstream).transcribe(try Self.hello.get(), options: .init())
        }
        #expect(error?.isRetryable == true)
        #expect(error?.status == nil)
    }

    @Test(
        "the key never appears in an error, even when the upstream echoes it",
        arguments: ["status400", "status401", "fail503x9", "html"])
    func keyNeverInErrors(scenario: String) throws {
        let fixture = try WhisperFixture()
        let transcriber = RemoteTranscriber(upstream: Self.upstream(fixture, scenario), maxAttempts: 1)
        let error = try #require(
            #expect(throws: TranscriptionError.self) {
                try transcriber.transcribe(try Self.hello.get(), options: .init())
            })
        for text in ["\(error)", String(reflecting: error), error.message, error.localizedDescription] {
            #expect(!text.contains(Self.key), "\(text)")
            #expect(!text.contains("\n"))
        }
        #expect(
            fixture.uploads.first?.authorization == "Bearer \(Self.key)", "the key was sent, so it could have leaked")
    }

    @Test("the configuration reads from JSON with verbose_json spelt as the API spells it")
    func configurationCoding() throws {
        let json =
            #"{"api":"openai","url":"https://api.groq.com/openai","keyEnvironment":"GROQ_API_KEY","#
            + #""responseFormat":"verbose_json"}"#
        let upstream = try JSONDecoder().decode(TranscriptionUpstream.self, from: Data(json.utf8))
        #expect(
            upstream
                == TranscriptionUpstream(
                    api: .openai, url: "https://api.groq.com/openai", keyEnvironment: "GROQ_API_KEY",
                    responseFormat: .verboseJSON))
    }
}
