import Foundation
import SpeakKit
import Testing

/// OpenAI's transcription API on a real `speak serve` through the real `openai` package: segments
/// and word times, streaming, and the parameters that reach Whisper.
@Suite("speak serve: OpenAI transcription", .serialized)
final class OpenAITranscriptionTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Samples"
    ).standardizedFileURL
    let server: RunningServer

    init() throws { server = try RunningServer() }

    /// Runs `call` (a `client.audio.transcriptions.create(...)` expression on `file`, the yes.m4a
    /// sample unless named, `audio` the open file) and returns what the script printed.
    func transcribe(
        _ call: String, file: String = samples.appendingPathComponent("yes.m4a").path,
        then body: String = "print(json.dumps(result.model_dump()))"
    ) throws -> Subprocess.Result {
        let script = """
            import json, openai
            client = openai.OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            with open("\(file)", "rb") as audio:
                try:
                    result = \(call)
                    \(body.replacingOccurrences(of: "\n", with: "\n        "))
                except openai.BadRequestError as error:
                    print(error.status_code, error.body["param"], error.body["message"])
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test(
        "verbose_json with timestamp_granularities word and segment: Whisper's segments, and words in order within them"
    )
    func wordTimestamps() throws {
        let output = try transcribe(
            #"client.audio.transcriptions.create(model="whisper-1", file=audio, language="en", "#
                + #"response_format="verbose_json", timestamp_granularities=["word", "segment"])"#
        ).stdout
        let object = try #require(
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any], "\(output)")
        let text = try #require(object["text"] as? String)
        #expect(text.lowercased().contains("yes, please do"), "\(text)")
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty && segments.first?["text"] as? String == text.trimmingCharacters(in: .whitespaces))
        let words = try #require(object["words"] as? [[String: Any]])
        // Whisper base hears espeak-ng's "that" as "not" at times: the first three words are sure.
        // No punctuation, as OpenAI's words: "Yes," is "Yes".
        let heard = words.map { $0["word"] as? String ?? "" }
        #expect(heard.count == 4 && heard.prefix(3) == ["Yes", "please", "do"], "\(words)")
        let starts = words.compactMap { $0["start"] as? Double }
        #expect(starts == starts.sorted() && starts.count == 4)
        let duration = try #require(object["duration"] as? Double)
        #expect(
            words.allSatisfy {
                ($0["end"] as? Double ?? 99) <= duration + 0.01
                    && ($0["end"] as? Double ?? 0) >= ($0["start"] as? Double ?? 1)
            })
    }

    @Test("a file that is not audio is OpenAI's 400, which the openai package raises as BadRequestError")
    func notAudio() throws {
        let script = """
            import openai
            client = openai.OpenAI(base_url="\(server.url)/v1", api_key="\(server.token)")
            try:
                client.audio.transcriptions.create(model="whisper-1", file=("notes.txt", b"not audio at all"))
            except openai.BadRequestError as error:
                print(error.status_code, error.body["param"], error.body["code"])
            """
        let result = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(result.stdout == "400 file unsupported_media\n", "\(result.stdout)\(result.stderr)")
    }

    @Test("json: the text, and usage in whole seconds as whisper-1 bills it")
    func usage() throws {
        let output = try transcribe(
            #"client.audio.transcriptions.create(model="whisper-1", file=audio, language="en")"#
        ).stdout
        let object = try #require(
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any], "\(output)")
        #expect((object["text"] as? String)?.lowercased().contains("yes, please do") == true, "\(output)")
        // yes.m4a is 1.7 s (the openai package reads the seconds as a float).
        let usage = try #require(object["usage"] as? [String: Any], "\(output)")
        #expect(usage["type"] as? String == "duration" && usage["seconds"] as? Double == 2, "\(output)")
    }

    @Test("verbose_json without granularities has segments but no words, as OpenAI's")
    func segmentsOnly() throws {
        let output = try transcribe(
            #"client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="verbose_json")"#
        ).stdout
        #expect(output.contains("\"segments\": [{") && output.contains("\"words\": null"), "\(output)")
    }

    @Test("stream=True: transcript.text.delta events, then transcript.text.done with the whole text")
    func streaming() throws {
        let output = try transcribe(
            #"client.audio.transcriptions.create(model="whisper-1", file=audio, language="en", stream=True)"#,
            then: "for event in result:\n    print(json.dumps(event.model_dump()))"
        ).stdout
        let events = output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(events.count >= 2, "\(output)")
        #expect(events.dropLast().allSatisfy { $0["type"] as? String == "transcript.text.delta" })
        let done = try #require(events.last)
        #expect(done["type"] as? String == "transcript.text.done")
        let text = try #require(done["text"] as? String)
        #expect(text.lowercased().contains("yes, please do"))
        #expect(events.dropLast().compactMap { $0["delta"] as? String }.joined() == text)
    }

    @Test("language, temperature and chunking_strategy reach the server; bad values are a 400 naming them")
    func parameters() throws {
        let call = #"client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="text", "#
        for extra in [
            #"language="en", temperature=0.4, prompt="Yes, please.""#, #"chunking_strategy="auto""#,
            #"chunking_strategy={"type": "server_vad", "threshold": 0.5}"#,
        ] {
            let output = try transcribe(call + extra + ")", then: "print(result)").stdout
            // (Whisper takes the prompt as text already said: with "Yes, please." it may write only the rest.)
            #expect(output.lowercased().contains("please do"), "\(extra): \(output)")
        }
        // Whisper itself refuses a language it does not know: the field reached it.
        let unknown = try transcribe(call + #"language="xx")"#, then: "print(result)").stdout
        #expect(unknown.hasPrefix("400 language unknown language 'xx'"), "\(unknown)")
        let hot = try transcribe(call + "temperature=1.5)", then: "print(result)").stdout
        #expect(hot.hasPrefix("400 temperature "), "\(hot)")
        let chunking = try transcribe(call + #"chunking_strategy={"type": "by_magic"})"#, then: "print(result)").stdout
        #expect(chunking.hasPrefix("400 chunking_strategy "), "\(chunking)")
    }

    @Test("srt and vtt have a cue per segment with its times")
    func subtitles() throws {
        for format in ["srt", "vtt"] {
            let output = try transcribe(
                #"client.audio.transcriptions.create(model="whisper-1", file=audio, language="en", "#
                    + #"response_format="\#(format)")"#,
                then: "print(result)"
            ).stdout
            let separator = format == "srt" ? "," : "."
            #expect(
                output.contains("00:00:00\(separator)000 --> 00:00:0") || output.contains("00:00:00\(separator)"),
                "\(output)")
            #expect(output.lowercased().contains("yes, please do"))
        }
    }

    @Test("translations: German speech comes back in English, as text and as verbose_json with task translate")
    func translation() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("german-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let made = try Subprocess.run(
            "/usr/bin/espeak-ng",
            [
                "-v", "de", "-s", "165", "-w", file,
                "Guten Morgen. Das Wetter ist heute sehr schön, und wir gehen in den Park.",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let call = #"client.audio.translations.create(model="whisper-1", file=audio"#
        let text = try transcribe(call + ")", file: file, then: "print(result.text)").stdout
        #expect(text.lowercased().hasPrefix("good morning"), "\(text)")
        let output = try transcribe(call + #", response_format="verbose_json")"#, file: file).stdout
        let object = try #require(
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any], "\(output)")
        #expect(object["task"] as? String == "translate" && object["language"] as? String == "de", "\(output)")
        // The same translation either way. Past "Good morning" its words are a temperature
        // fallback's sample, here as in faster-whisper (which writes "a new car" or "the park").
        let translated = (object["text"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(translated == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(output)")
        // The same audio transcribed is German.
        let german = try transcribe(
            #"client.audio.transcriptions.create(model="whisper-1", file=audio)"#, file: file,
            then: "print(result.text)"
        ).stdout
        #expect(german.hasPrefix("Guten Morgen"), "\(german)")
    }
}
