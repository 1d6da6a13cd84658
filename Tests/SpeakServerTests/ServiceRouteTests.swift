import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakServer

/// The route table, called in process and on the wire: every route answers its method, other
/// methods get 405 naming the allowed ones, other paths 404, each in OpenAI's error shape.
@Suite("SpeechService routes")
struct ServiceRouteTests {
    @Test("every route in the table answers its own method: neither 404 nor 405", arguments: Transport.allCases)
    func everyRouteAnswers(transport: Transport) throws {
        let harness = try transport.harness()
        #expect(SpeechService.routes.count > 15)
        for route in SpeechService.routes {
            // /ready synthesises with the default voice and /play plays: both run, on test engines.
            let answer = harness.call(route.method, route.path, json: route.method == "POST" ? "{}" : nil)
            #expect(
                ![404, 405].contains(answer.status), "\(route.method) \(route.path): \(answer.status) \(answer.text)")
        }
    }

    @Test(
        "a method the path does not take is 405 with Allow naming the ones it does (HEAD wherever GET)",
        arguments: Transport.allCases)
    func methodNotAllowed(transport: Transport) throws {
        let harness = try transport.harness()
        for path in Set(SpeechService.routes.map(\.path)) {
            let methods = SpeechService.routes.filter { $0.path == path }.map(\.method)
            let answer = harness.call("DELETE", path)
            #expect(answer.status == 405, "\(path): \(answer.text)")
            let allowed = try #require(answer.header("Allow"), "\(path)")
            let expected = methods.flatMap { $0 == "GET" ? ["GET", "HEAD"] : [$0] }
            #expect(allowed == expected.joined(separator: ", "), "\(path)")
            #expect(answer.errorMessage?.contains("DELETE is not allowed on \(path)") == true, "\(answer.text)")
            #expect(answer.errorField("type") == "invalid_request_error")
        }
        #expect(harness.call("DELETE", "/speak").header("Allow") == "POST, GET, HEAD")
        #expect(harness.call("GET", "/api/speak").header("Allow") == "POST")
    }

    @Test("HEAD is answered wherever GET is, with GET's status and headers", arguments: Transport.allCases)
    func head(transport: Transport) throws {
        let harness = try transport.harness()
        let get = harness.call("GET", "/health")
        let head = harness.call("HEAD", "/health")
        #expect(head.status == 200 && head.header("Content-Type") == get.header("Content-Type"))
        #expect(head.body.isEmpty && !get.body.isEmpty)
        let speech = harness.call("HEAD", "/speak", query: ["text": "Head first.", "voice": "scripted"])
        #expect(speech.status == 200 && speech.header("Content-Type") == "audio/mpeg", "\(speech.text)")
        #expect(speech.body.isEmpty && speech.header("ETag") != nil)
    }

    @Test(
        "a path not in the table is 404 in OpenAI's shape, whatever the method",
        arguments: Transport.allCases, ["GET", "POST", "PUT"])
    func notFound(transport: Transport, method: String) throws {
        let harness = try transport.harness()
        for path in ["/nowhere", "/speak/", "/v1/models/tts-9", "/SPEAK", "/v1/audio"] {
            let answer = harness.call(method, path)
            #expect(answer.status == 404, "\(method) \(path): \(answer.text)")
            #expect(answer.errorField("code") == "not_found" && answer.errorMessage == "no such endpoint: \(path)")
            #expect(try #require(answer.error).keys.sorted() == ["code", "message", "param", "type"])
        }
    }

    @Test(
        "/health, /voices, /v1/models and each model, /v1/audio/voices list what there is",
        arguments: Transport.allCases)
    func listings(transport: Transport) throws {
        let harness = try transport.harness()
        #expect(harness.call("GET", "/health").json?["status"]?.string == "ok")
        guard case .array(let voices)? = harness.call("GET", "/voices").json?["voices"] else {
            Issue.record("no voices")
            return
        }
        let names = voices.compactMap { value -> String? in
            guard case .object(let voice) = value else { return nil }
            return voice["name"]?.string
        }
        #expect(names == ["broken", "cut", "default", "missing", "remote", "scripted"])
        guard case .array(let models)? = harness.call("GET", "/v1/models").json?["data"] else {
            Issue.record("no models")
            return
        }
        let ids = models.compactMap { value -> String? in
            guard case .object(let model) = value else { return nil }
            return model["id"]?.string
        }
        #expect(ids == SpeechService.models + SpeechService.transcriptionModels)
        for id in ids {
            let model = harness.call("GET", "/v1/models/\(id)")
            #expect(model.status == 200 && model.json?["id"]?.string == id, "\(id): \(model.text)")
        }
        guard case .array(let listed)? = harness.call("GET", "/v1/audio/voices").json?["data"] else {
            Issue.record("no audio voices")
            return
        }
        let alloy = listed.first {
            if case .object(let voice) = $0 { voice["id"]?.string == "alloy" } else { false }
        }
        guard case .object(let alloyVoice)? = alloy else {
            Issue.record("alloy is not listed")
            return
        }
        // OpenAI's names are answered by the natural English voice.
        #expect(alloyVoice["speaks_as"]?.string == "scripted")
    }

    @Test(
        "/ready is 200 when the default voice speaks; a voice whose model is missing is reported, not fatal",
        arguments: Transport.allCases)
    func ready(transport: Transport) throws {
        let harness = try transport.harness()
        let answer = harness.call("GET", "/ready")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json?["ready"] == .bool(true))
        guard case .object(let checks)? = answer.json?["checks"] else {
            Issue.record("no checks: \(answer.text)")
            return
        }
        #expect(checks["engine"]?.string == "ok")
        #expect(checks["voice:missing"]?.string?.contains("not installed") == true, "\(answer.text)")
        #expect(checks["voice-activity:level"]?.string == "ok", "\(answer.text)")
    }

    @Test("/ready shows a voice activity detector that could not be used, and stays 200", arguments: Transport.allCases)
    func readyWithoutDetector(transport: Transport) throws {
        let fallen = VoiceActivity(
            name: "silero", problem: { "silero: the model is truncated" }, make: { LevelDetector() })
        let answer = try transport.harness(voiceActivity: fallen).call("GET", "/ready")
        #expect(answer.status == 200, "\(answer.text)")
        guard case .object(let checks)? = answer.json?["checks"] else {
            Issue.record("no checks: \(answer.text)")
            return
        }
        #expect(checks["voice-activity:silero"]?.string == "silero: the model is truncated", "\(answer.text)")
    }

    @Test("POST /play speaks on the server's device and answers how long it lasted", arguments: Transport.allCases)
    func play(transport: Transport) throws {
        let harness = try transport.harness()
        let answer = harness.call("POST", "/play", json: #"{"text": "Played.", "voice": "scripted"}"#)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json?["played"] == .bool(true))
        // Three chunks of 160 samples at 16 kHz.
        #expect(answer.json?["seconds"] == .number(0.03), "\(answer.text)")
        #expect(answer.header("X-Speak-Fallback") == nil)
    }
}
