import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

/// OpenAI's speech API on a real `speak serve`, through the real `openai` package: every
/// response format, server-sent events, speed, the voice list, and a hang-up that stops synthesis.
@Suite("speak serve: OpenAI speech", .serialized)
final class OpenAISpeechTests {
    let server: RunningServer
    static let text = "Hello from the OpenAI client. Every word must arrive, the last one too."

    /// HTTP straight to the server, for what needs no OpenAI package.
    let client: WireClient

    init() throws {
        server = try RunningServer()
        client = WireClient(port: server.port, token: server.token)
    }

    func python(_ body: String) throws -> Subprocess.Result {
        let script =
            "from openai import OpenAI\nclient = OpenAI(base_url=\"\(server.url)/v1\", api_key=\"\(server.token)\")\n"
            + body
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    /// The reply in `format`, fetched by the openai package. espeak-ng's `default` by default:
    /// the same text always lasts as long (a Piper voice samples its durations).
    func speech(_ format: String, _ extra: String = "", voice: String = "default") throws -> Data {
        let output = server.directory.appendingPathComponent("reply-\(UUID().uuidString.prefix(6)).\(format)")
        _ = try python(
            """
            response = client.audio.speech.create(
                model="tts-1", voice="\(voice)", input="\(Self.text)", response_format="\(format)"\(extra))
            response.write_to_file("\(output.path)")
            """)
        return try Data(contentsOf: output)
    }

    /// The server's own decoder's view of `audio`: its length, and what Whisper hears in it.
    func heard(_ audio: Data, name: String) throws -> (duration: Double, text: String) {
        let form = MultipartBody(
            fields: [("model", "whisper-1"), ("response_format", "verbose_json"), ("language", "en")],
            files: [MultipartBody.File(filename: name, contentType: "application/octet-stream", data: audio)])
        let reply = client.upload("/v1/audio/transcriptions", form)
        #expect(reply.status == 200, "\(name): \(reply.text)")
        return (reply.json?["duration"]?.number ?? 0, reply.json?["text"]?.string ?? "")
    }

    @Test(
        "every response_format decodes to the whole reply: as long as the WAV, the last words heard",
        arguments: ["mp3", "opus", "aac", "flac", "pcm"])
    func formats(format: String) throws {
        let wav = try PCMBuffer(audio: try speech("wav"))
        let data = try speech(format)
        let duration: Double
        if format == "pcm" {
            duration = Double(data.count) / 48000  // 24 kHz, 16-bit mono
        } else {
            let (decoded, text) = try heard(data, name: "reply.\(format)")
            duration = decoded
            #expect(text.lowercased().contains("last one"), "\(format): heard '\(text)'")
        }
        // Encoder priming and padding may add a little; nothing may be missing at the end.
        #expect(
            duration >= wav.duration - 0.01 && duration <= wav.duration + 0.15,
            "\(format): \(duration) s, the WAV \(wav.duration) s")
    }

    @Test("the reply cache keys on the format: a second format is a miss, the same one a hit with the same bytes")
    func cacheKeysOnFormat() throws {
        func fetch(_ format: String) throws -> ServiceAnswer {
            let body = #"{"model": "tts-1", "input": "Cache me by format.", "response_format": "\#(format)"}"#
            return client.call("POST", "/v1/audio/speech", json: body)
        }
        let opus = try fetch("opus")
        let flac = try fetch("flac")
        let again = try fetch("opus")
        #expect(opus.header("content-type") == "audio/ogg" && flac.header("content-type") == "audio/flac")
        #expect(opus.header("x-speak-cache") == "miss" && flac.header("x-speak-cache") == "miss")
        #expect(again.header("x-speak-cache") == "hit")
        #expect(
            again.body == opus.body && opus.body.prefix(4) == Data("OggS".utf8)
                && flac.body.prefix(4) == Data("fLaC".utf8))
    }

    @Test(
        """
        stream_format sse: speech.audio.delta events whose audio joins into the reply, \
        then speech.audio.done with usage
        """
    )
    func serverSentEvents() throws {
        let result = try python(
            """
            import base64, json
            with client.audio.speech.with_streaming_response.create(
                    model="tts-1", voice="alloy", input="\(Self.text)", stream_format="sse") as response:
                print(response.headers["content-type"])
                for line in response.iter_lines():
                    if line.startswith("data: "):
                        print(line[6:])
            """)
        var lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.removeFirst().hasPrefix("text/event-stream"))
        let events = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(events.count == lines.count && events.count >= 2, "\(result.stdout.prefix(300))")
        let deltas = events.dropLast()
        #expect(deltas.allSatisfy { $0["type"] as? String == "speech.audio.delta" })
        let audio = deltas.reduce(into: Data()) { $0 += Data(base64Encoded: $1["audio"] as? String ?? "") ?? Data() }
        let done = try #require(events.last)
        #expect(done["type"] as? String == "speech.audio.done")
        let usage = try #require(done["usage"] as? [String: Any])
        #expect(
            (usage["input_tokens"] as? Int ?? 0) > 0 && usage["total_tokens"] != nil && usage["output_tokens"] != nil)
        // The same reply, from the cache the stream filled.
        let plain = try PCMBuffer(audio: try speech("mp3", voice: "alloy"))
        let streamed = try PCMBuffer(audio: audio)
        #expect(abs(streamed.duration - plain.duration) < 0.05, "\(streamed.duration) s vs \(plain.duration) s")
    }

    @Test(
        """
        stream_format audio streams the reply chunked; speed 0.25...4 is honoured, outside it a 400; \
        instructions are accepted
        """
    )
    func speedAndInstructions() throws {
        func post(_ fields: String) throws -> ServiceAnswer {
            client.call(
                "POST", "/v1/audio/speech",
                json: #"{"model": "tts-1", "voice": "ava", "input": "\#(Self.text)"\#(fields)}"#)
        }
        let normal = try post(#", "stream_format": "audio""#)
        #expect(normal.status == 200 && normal.header("transfer-encoding") == "chunked", "\(normal.headers)")
        #expect(normal.streamed && !normal.cut)
        let fast = try post(#", "speed": 2, "instructions": "Speak cheerfully.""#)
        #expect(fast.status == 200, "\(fast.text)")
        let (normalSeconds, fastSeconds) = (
            try PCMBuffer(audio: normal.body).duration, try PCMBuffer(audio: fast.body).duration
        )
        #expect(fastSeconds < normalSeconds * 0.7, "speed 2: \(fastSeconds) s, speed 1: \(normalSeconds) s")
        for speed in ["0.2", "4.5"] {
            let reply = try post(#", "speed": \#(speed)"#)
            #expect(
                reply.status == 400 && reply.errorMessage?.contains("speed must be 0.25...4.0") == true,
                "\(speed): \(reply.text)")
        }
        #expect(try post(#", "speed": 0.25"#).status == 200)
        let badStream = try post(#", "stream_format": "video""#)
        #expect(badStream.status == 400 && badStream.errorField("param") == "stream_format")
        let badInstructions = try post(#", "instructions": 3"#)
        #expect(badInstructions.status == 400)
    }

    @Test("a Piper voice follows the whole of OpenAI's speed range, past espeak-ng's 80–450 words per minute")
    func piperSpeed() throws {
        func seconds(_ speed: String) throws -> Double {
            let reply = client.call(
                "POST", "/v1/audio/speech",
                json: #"{"model": "tts-1", "voice": "joe", "input": "\#(Self.text)", "speed": \#(speed)}"#)
            try #require(reply.status == 200, "\(speed): \(reply.text)")
            return try PCMBuffer(audio: reply.body).duration
        }
        let (slowest, slow, fast, fastest) = (
            try seconds("0.25"), try seconds("0.5"), try seconds("2"), try seconds("4")
        )
        // Twice as long (within the model's own sampling of durations); clamped to 80 words per
        // minute, 0.25 was 0.46 and hardly longer than 0.5.
        #expect(slowest / slow > 1.6, "speed 0.25: \(slowest) s, 0.5: \(slow) s")
        // Shorter, though not twice: the model gives every phoneme a frame at least.
        #expect(fastest < fast, "speed 2: \(fast) s, 4: \(fastest) s")
    }

    @Test(
        "OpenAI's newer voices (marin, cedar) and dated snapshots of its models are answered; a made-up model is a 400")
    func newerNames() throws {
        let result = try python(
            """
            import openai
            for model, voice in [("gpt-4o-mini-tts-2025-12-15", "marin"), ("gpt-4o-mini-tts-2025-03-20", "cedar"),
                                 ("tts-1-1106", "alloy"), ("tts-1-hd-1106", "nova")]:
                reply = client.audio.speech.create(model=model, voice=voice, input="Hi.", response_format="wav")
                print(model, voice, len(reply.content) > 1000)
            try:
                client.audio.speech.create(model="tts-1-max", voice="alloy", input="Hi.")
            except openai.BadRequestError as error:
                print("refused", error.body["code"])
            """)
        #expect(
            result.stdout
                == """
                gpt-4o-mini-tts-2025-12-15 marin True
                gpt-4o-mini-tts-2025-03-20 cedar True
                tts-1-1106 alloy True
                tts-1-hd-1106 nova True
                refused model_not_found

                """)
    }

    @Test(
        "input with nothing to say is still a whole file a player opens, in every format, on Piper and espeak-ng",
        arguments: ["alloy", "default"])
    func nothingToSay(voice: String) throws {
        for format in ["mp3", "opus", "aac", "flac", "wav", "pcm"] {
            for input in ["...", "()"] {
                let body =
                    #"{"model": "tts-1", "voice": "\#(voice)", "input": "\#(input)", "response_format": "\#(format)"}"#
                let reply = client.call("POST", "/v1/audio/speech", json: body)
                #expect(reply.status == 200 && !reply.cut, "\(format) \(input): \(reply.text)")
                let duration =
                    format == "pcm"
                    ? Double(reply.body.count) / 48000
                    : try heard(reply.body, name: "nothing.\(format)").duration
                #expect(duration >= 0.05, "\(voice) \(format) '\(input)': \(reply.body.count) bytes, \(duration) s")
            }
        }
    }

    @Test("GET /v1/audio/voices lists our voices and OpenAI's names")
    func voices() throws {
        let reply = client.call("GET", "/v1/audio/voices")
        #expect(reply.status == 200)
        let data = try #require(reply.json?["data"]?.array).compactMap(\.object)
        let ids = Set(data.compactMap { $0["id"]?.string })
        #expect(ids.isSuperset(of: ["default", "nadia", "alloy", "nova"]), "\(ids)")
        #expect(data.allSatisfy { $0["object"]?.string == "audio.voice" && $0["language"]?.string != nil })
        // OpenAI's names speak with the neural English voice when one is installed, as joe is here.
        let alloy = data.first { $0["id"]?.string == "alloy" }
        #expect(alloy?["speaks_as"]?.string == "joe", "\(alloy ?? [:])")
    }
}

/// A client that hangs up mid-reply stops its synthesis, rather than leaving a worker speaking
/// a long text to nobody.
@Suite("speak serve: a hang-up cancels synthesis", .serialized)
struct SpeechCancellationTests {
    /// The server's child processes (its synthesis workers) and their CPU time in ticks.
    static func children(of pid: pid_t) -> [pid_t: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [pid_t: Int] = [:]
        for task in tasks {
            let list = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in list.split(separator: " ").compactMap({ pid_t($0) }) {
                guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                // Fields after the command: state is the first; utime and stime are the 12th and 13th.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                result[child] = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
            }
        }
        return result
    }

    @Test(
        "the openai client reads the first bytes of a long reply and closes: its worker is stopped, not left speaking")
    func hangUp() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID()).json")
        try Data(#"{"maximumTextCharacters": 400000, "maximumBodyBytes": 1000000}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let server = try RunningServer(["--config", config.path])
        let before = Self.children(of: server.process.pid)
        #expect(before.count == 2, "\(before)")
        // About an hour and a half of speech: a minute of espeak-ng's time, far longer than the wait below.
        let text = String(repeating: "This sentence is spoken again and again, to nobody. ", count: 6000)
        let script = """
            from openai import OpenAI
            client = OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            with client.audio.speech.with_streaming_response.create(
                    model="tts-1", voice="default", input="\(text)", response_format="mp3") as response:
                first = next(response.iter_bytes(4096))
                print(response.status_code, len(first))
            """
        // Too long for one argument (Linux caps each at 128 KiB): the script goes in a file.
        let file = server.directory.appendingPathComponent("hang-up.py")
        try Data(script.utf8).write(to: file)
        let result = try Subprocess.run("/usr/bin/env", ["python3", file.path])
        #expect(result.status == 0 && result.stdout.hasPrefix("200 "), "\(result.stdout)\(result.stderr)")
        // The worker that was speaking is killed and replaced; poll for it, with a deadline.
        let deadline = Date().addingTimeInterval(30)
        var now = Self.children(of: server.process.pid)
        while Set(now.keys) == Set(before.keys) && Date() < deadline {
            usleep(50_000)
            now = Self.children(of: server.process.pid)
        }
        #expect(Set(now.keys) != Set(before.keys), "the worker still runs: \(before) → \(now)")
        // And nothing synthesises any more: the server goes on answering, its workers idle.
        let reply = WireClient(port: server.port, token: server.token).call("GET", "/ready")
        #expect(reply.status == 200)
    }
}
