import Foundation
import SpeakKit
import Testing

/// The recorder capturing, through ALSA's `default` and a real PulseAudio daemon, what the test
/// speaks into a virtual microphone. The recorder runs in this process and reaches the test's own
/// daemon through `Recorder.Options.alsaConfiguration`. One test at a time: their timings are real.
@Suite("Recorder", .serialized)
final class RecorderTests {
    /// Samples at or above 1% of full scale count as audible.
    static let threshold = 0.01
    static let speech = try! Microphone.speech("Please record this answer, then stop.")
    /// Seconds from the first to the last audible sample of `speech`.
    static let speechSpan = span(PCMBuffer(sampleRate: Microphone.sampleRate, samples: speech))!

    let server: AudioServer
    let spool: Spool

    init() throws {
        server = try AudioServer(microphone: true)
        spool = Spool(directory: server.directory.appendingPathComponent("spool"))
    }

    static func span(_ pcm: PCMBuffer) -> Double? {
        pcm.audibleSpan(threshold: threshold).map { Double($0.count) / Double(pcm.sampleRate) }
    }

    func recorder(
        _ options: Recorder.Options = .init(), onChange: @escaping @Sendable (Recorder.Status) -> Void = { _ in }
    ) -> Recorder {
        var options = options
        options.spool = spool
        options.alsaConfiguration = server.alsaConfiguration
        return Recorder(options: options, onChange: onChange)
    }

    var spooledFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.directory.path)) ?? []).filter {
            $0.hasSuffix(".wav")
        }
    }

    /// Waits until `recorder` is recording and has captured `seconds`.
    func waitUntilRecording(_ recorder: Recorder, seconds: Double = 0, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if case .recording(let duration) = recorder.state, duration >= seconds { return }
            guard Date() < deadline else {
                throw TestFailure("not recording \(seconds) s within \(timeout) s: \(recorder.state)")
            }
            usleep(5_000)
        }
    }

    @Test("records what was spoken: the audible duration matches what was fed, within 100 ms")
    func recordsSpeech() throws {
        let recorder = recorder()
        let recording = Background { try recorder.record() }
        try waitUntilRecording(recorder, seconds: 0.3)
        server.say(Self.speech)
        try server.waitUntilSaid()
        // Half a second of silence after it.
        try waitUntilRecording(recorder, seconds: recorder.duration + 0.5)
        recorder.stop()
        let result = try recording.value()
        #expect(result.stopReason == .stopped)
        #expect(result.sampleRate == 16000)
        let pcm = try result.pcm()
        #expect(abs(pcm.duration - result.duration) < 0.001)
        let heard = try #require(Self.span(pcm), "nothing audible was recorded")
        #expect(abs(heard - Self.speechSpan) <= 0.1, "recorded \(heard) s of \(Self.speechSpan) s")
        #expect(recorder.state == .idle)
        #expect(spool.pending == [result.url])

        // For upload: MP3 at 32 kbps, about 4 KB a second, of the same length.
        let mp3 = try result.mp3Data()
        #expect(Double(mp3.count) <= 4000 * result.duration + 1000)
        let decoded = try MP3Decoder.decode(mp3)
        #expect(decoded.sampleRate == 16000)
        #expect(abs(decoded.duration - result.duration) < 0.15)
    }

    @Test("until silence stops about 1 s after the speech ends")
    func untilSilence() throws {
        let recorder = recorder(.init(untilSilence: EndPointer.Settings(silence: 1.0, noSpeechTimeout: 10)))
        let recording = Background { try recorder.record() }
        try waitUntilRecording(recorder, seconds: 0.3)
        server.say(Self.speech)
        let result = try recording.value(timeout: 20)
        #expect(result.stopReason == .endOfSpeech)
        let pcm = try result.pcm()
        let last = try #require(pcm.audibleSpan(threshold: Self.threshold)).upperBound
        let after = Double(pcm.samples.count - last) / Double(pcm.sampleRate)
        #expect(after >= 0.9 && after <= 1.2, "stopped \(after) s after the speech")
        #expect(abs(try #require(Self.span(pcm)) - Self.speechSpan) <= 0.1)
    }

    @Test("until silence with no speech at all ends in noSpeech after its timeout, leaving no file")
    func noSpeech() throws {
        let recorder = recorder(.init(untilSilence: EndPointer.Settings(noSpeechTimeout: 1.0)))
        #expect(throws: RecorderError.noSpeech) { try recorder.record() }
        // Counted in samples taken, not on a clock: the timeout is 1 s of audio.
        #expect(abs(recorder.duration - 1.0) < 0.001, "gave up after \(recorder.duration) s of audio")
        #expect(recorder.state == .error("no speech heard"))
        #expect(spooledFiles.isEmpty)
    }

    @Test("max duration stops at exactly that many seconds")
    func maxDuration() throws {
        let recording = try recorder(.init(maxDuration: 1.0)).record()
        #expect(recording.stopReason == .maxDuration)
        #expect(recording.duration == 1.0)
        #expect(try recording.pcm().samples.count == 16000)
    }

    @Test("the size limit stops before the file outgrows it")
    func sizeLimit() throws {
        let recording = try recorder(.init(maxBytes: 44 + 16000)).record()
        #expect(recording.stopReason == .sizeLimit)
        #expect(try Data(contentsOf: recording.url).count == 44 + 16000)
        #expect(recording.duration == 0.5)
    }

    @Test("the level rises above 0.05 while speaking and is about 0 in silence")
    func level() throws {
        let statuses = Locked<[Recorder.Status]>([])
        let recorder = recorder { status in statuses.withLock { $0.append(status) } }
        let recording = Background { try recorder.record() }
        try waitUntilRecording(recorder, seconds: 0.5)
        server.say(Self.speech)
        try server.waitUntilSaid()
        let end = recorder.duration
        try waitUntilRecording(recorder, seconds: end + 0.8)
        recorder.stop()
        _ = try recording.value()
        let levels = statuses.withLock { $0 }.filter { if case .recording = $0.state { true } else { false } }
        let before = levels.filter { $0.duration <= 0.4 }.map(\.level)
        let during = levels.filter { $0.duration > 0.4 && $0.duration <= end + 0.3 }.map(\.level)
        let after = levels.filter { $0.duration > end + 0.4 }.map(\.level)
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(before.allSatisfy { $0 < 0.001 }, "\(before.max() ?? 0)")
        #expect((during.max() ?? 0) > 0.05, "\(during.max() ?? 0)")
        #expect(after.allSatisfy { $0 < 0.001 }, "\(after.max() ?? 0)")
        #expect(recorder.level == 0)
    }

    @Test("states go recording (duration rising) → transcribing → idle, or to error")
    func states() throws {
        let states = Locked<[Recorder.State]>([])
        let recorder = recorder(.init(maxDuration: 0.5)) { status in states.withLock { $0.append(status.state) } }
        #expect(recorder.state == .idle)
        let text = try recorder.record { recording in
            #expect(recorder.state == .transcribing)
            return "heard \(recording.duration) s"
        }
        #expect(text == "heard 0.5 s")
        let seen = states.withLock { $0 }
        let durations = seen.compactMap { if case .recording(let duration) = $0 { duration } else { nil } }
        #expect(durations.first == 0 && durations.last == 0.5)
        #expect(durations == durations.sorted())
        #expect(Array(seen.drop { if case .recording = $0 { true } else { false } }) == [.idle, .transcribing, .idle])

        struct Offline: Error, CustomStringConvertible { var description: String { "transcriber offline" } }
        #expect(throws: Offline.self) { try recorder.record { _ in throw Offline() } }
        #expect(recorder.state == .error("transcriber offline"))
    }

    @Test("the spool file is a playable WAV at every moment of recording: what a kill -9 would leave")
    func crashSafe() throws {
        // A killed recorder's file is the file on disk at that moment: the header is rewritten
        // after the samples it counts, every 0.5 s, so any moment's file decodes.
        let recorder = recorder()
        let recording = Background { try recorder.record() }
        try waitUntilRecording(recorder)
        var checked: [Double] = []
        for moment in 1...6 {
            // Every 0.23 s of audio: moments that fall before, on and after the header rewrites.
            try waitUntilRecording(recorder, seconds: 0.23 * Double(moment))
            let name = try #require(spooledFiles.first)
            let pcm = try PCMBuffer(audio: Data(contentsOf: spool.directory.appendingPathComponent(name)))
            #expect(pcm.sampleRate == 16000)
            checked.append(pcm.duration)
            // Still being written: not yet waiting for transcription.
            #expect(spool.pending.isEmpty)
        }
        recorder.stop()
        let result = try recording.value()
        #expect(checked.last! > 0.5, "\(checked)")
        #expect(checked.last! <= result.duration)
        #expect(spool.pending == [result.url])
    }

    @Test("cancel stops recording and deletes the file")
    func cancel() throws {
        let recorder = recorder()
        let recording = Background { try recorder.record() }
        try waitUntilRecording(recorder, seconds: 0.3)
        #expect(spooledFiles.count == 1)
        recorder.cancel()
        #expect(throws: RecorderError.cancelled) { try recording.value() }
        #expect(spooledFiles.isEmpty)
        #expect(recorder.state == .idle)
    }

    @Test("a recording under 0.01 s is refused as tooShort, leaving no file")
    func tooShort() throws {
        #expect(throws: RecorderError.tooShort) { try self.recorder(.init(maxDuration: 0.005)).record() }
        let stoppedFirst = recorder()
        stoppedFirst.stop()
        #expect(throws: RecorderError.tooShort) { try stoppedFirst.record() }
        #expect(spooledFiles.isEmpty)
        #expect(RecorderError.tooShort.description == "recording too short (under 0.01 s)")
    }

    @Test(
        "an unknown device is noCaptureDevice, in one line, in the system's ALSA configuration or a given one",
        arguments: [false, true])
    func noCaptureDevice(configured: Bool) throws {
        var options = Recorder.Options(device: "nosuchdevice", spool: spool)
        if configured { options.alsaConfiguration = server.alsaConfiguration }
        let recorder = Recorder(options: options)
        #expect(throws: RecorderError.noCaptureDevice("nosuchdevice")) { try recorder.record() }
        let message = RecorderError.noCaptureDevice("nosuchdevice").description
        #expect(message.contains("nosuchdevice") && !message.contains("\n"))
        #expect(recorder.state == .error(message))
        #expect(spooledFiles.isEmpty)
    }

    @Test("a malformed ALSA configuration is recordingFailed, in one line naming snd_config_load_string")
    func malformedConfiguration() throws {
        let recorder = Recorder(options: .init(spool: spool, alsaConfiguration: "pcm.default { type pulse"))
        #expect {
            try recorder.record()
        } throws: { error in
            guard case RecorderError.recordingFailed(let message) = error else { return false }
            return message.contains("snd_config_load_string") && !message.contains("\n")
        }
        #expect(spooledFiles.isEmpty)
    }
}

/// Runs `body` on its own thread; `value()` waits for its result.
final class Background<Value: Sendable>: Sendable {
    private let result = Locked<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    func value(timeout: TimeInterval = 10) throws -> Value {
        guard done.wait(timeout: .now() + timeout) == .success else {
            throw TestFailure("still running after \(timeout) s")
        }
        return try result.withLock { $0! }.get()
    }
}
