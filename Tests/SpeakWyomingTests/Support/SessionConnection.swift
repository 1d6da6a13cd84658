import Foundation
import SpeakKit
import SpeakTestSupport

@testable import SpeakWyoming

/// A ``WyomingSession`` on its own thread, at one end of a socket pair (a client's connection as
/// the server sees it); the test is the client at the other end.
final class SessionConnection {
    /// The client's end.
    let descriptor: Int32
    private var reader: EventReader
    private let ended = DispatchSemaphore(value: 0)

    init(_ service: WyomingService) {
        var descriptors: [Int32] = [0, 0]
        // Close-on-exec: a worker another suite spawns meanwhile must not hold either end open.
        precondition(
            socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0)
        descriptor = descriptors[0]
        // A client that waits longer than this for the server's next event fails instead of hanging.
        var limits = WyomingLimits()
        limits.idleSeconds = 20
        reader = EventReader(descriptor: descriptor, limits: limits)
        let (server, ended) = (descriptors[1], ended)
        Thread.detachNewThread {
            WyomingSession(descriptor: server, service: service).run()
            close(server)
            ended.signal()
        }
    }

    deinit {
        close(descriptor)
        ended.wait()
    }

    func send(_ event: WyomingEvent) { send(event.encoded) }

    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(
                    descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// The server's next event; `nil` once it has closed the connection.
    func next() throws -> WyomingEvent? { try reader.next() }

    /// Events up to and including the first of `type`; all of them if the connection ends first.
    func events(through type: String) throws -> [WyomingEvent] {
        var events: [WyomingEvent] = []
        while let event = try next() {
            events.append(event)
            if event.type == type { break }
        }
        return events
    }

    /// Whether the server ended the session within `seconds` once this client has closed too.
    func sessionEnds(within seconds: Double) -> Bool {
        shutdown(descriptor, Int32(SHUT_WR))
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()  // for deinit
        return true
    }
}

/// A Wyoming service on test engines: `scripted` speaks three chunks of 160 samples at 16 kHz,
/// `cut` fails after its second chunk, `broken` before its first; the transcriber hears "yes".
enum TestService {
    static let scripted = Voice(name: "scripted", language: "en-US", engine: "scripted")
    static let cut = Voice(name: "cut", language: "en-US", engine: "cut")
    static let broken = Voice(name: "broken", language: "en-US", engine: "broken")

    static func make(
        limits: WyomingLimits = WyomingLimits(), scripted scriptedEngine: ScriptedSynthesizer = ScriptedSynthesizer()
    ) -> WyomingService {
        var failsMidway = ScriptedSynthesizer.Script()
        (failsMidway.chunks, failsMidway.failsAfter, failsMidway.failure) = (10, 2, ScriptedSynthesizer.Fault())
        var failsAtOnce = ScriptedSynthesizer.Script()
        (failsAtOnce.failsAfter, failsAtOnce.failure) = (0, ScriptedSynthesizer.Fault())
        let (cutEngine, brokenEngine) = (ScriptedSynthesizer(failsMidway), ScriptedSynthesizer(failsAtOnce))
        let engine = SpeechEngine(
            catalog: VoiceCatalog(voices: [scripted, cut, broken]),
            synthesizers: SynthesizerRegistry([
                EspeakSynthesizer.engineName: { ScriptedSynthesizer() }, "scripted": { scriptedEngine },
                "cut": { cutEngine }, "broken": { brokenEngine },
            ]))
        let transcriber = FixedTranscriber(text: " yes ")
        var limits = limits
        limits.lingerSeconds = 5
        return WyomingService(
            engine: engine, transcriber: transcriber, transcriberInfo: WyomingService.TranscriberInfo(transcriber),
            limits: limits)
    }
}
