import Foundation
import SpeakKit

/// `speak -v joe …` handing its text to this server on the local socket, in the frame protocol
/// (``WorkerFrame``): one ``SynthesisRequest`` in, its PCM in frames out, with every
/// ``SpeechOptions`` field (rate, pitch, volume, SSML) as the command gave it. The reply is the
/// engine's, as over HTTP: from the cache when it was made before (kept as WAV at the model's own
/// rate), by the fallback voice when a remote engine fails, refused when the voice cannot speak
/// here. A refusal is an `error` frame before any audio, after which the command speaks the text
/// itself; an `error` after some audio ends the command with its message.
extension SpeechService {
    /// Answers the one request on `connection`, which the caller then closes.
    public func handOff(_ connection: Int32) {
        Self.setTimeout(SO_RCVTIMEO, seconds: configuration.idleTimeoutSeconds, on: connection)
        // A command that stops taking the reply is let go, as an HTTP client is.
        Self.setTimeout(SO_SNDTIMEO, seconds: configuration.sendTimeoutSeconds, on: connection)
        // The command plays as it reads, in real time: what its socket cannot take yet waits here,
        // so the model or worker that makes the reply is free for others as soon as it is made.
        let socket = SocketWriter(descriptor: connection)
        var reply = WorkerFrame.ReplyWriter(WorkerFrame.SocketFrames(socket))
        do {
            var lines = WorkerFrame.RequestReader(descriptor: connection, maximumBytes: configuration.maximumBodyBytes)
            guard let line = try lines.next() else { return }
            try speak(handedOff(line), into: &reply)
        } catch {
            try? reply.fail(message: (error as? HTTPError)?.message ?? String(describing: error))
        }
        try? socket.flush(waiting: true)
    }

    /// The request as this server makes it: its own voice of the name, which must be the very
    /// voice the command has (another voice file of the name: the command speaks it as it knows
    /// it), the text, rate and pitch checked as over HTTP, the volume in its range.
    private func handedOff(_ line: Data) throws -> SynthesisRequest {
        let given: SynthesisRequest
        do {
            given = try SynthesisRequest(line: line)
        } catch {
            throw HTTPError(400, "not a synthesis request: \(error)")
        }
        let voice = try voice(named: given.voice.name)
        guard voice.identity == given.voice.identity else {
            throw HTTPError(400, "this server's voice '\(voice.name)' is not the command's (another voice file)")
        }
        _ = try SpeechOrder(text: given.text, voice: voice, rate: given.rate, pitch: given.pitch, service: self)
        guard SpeechOptions.volumeRange.contains(given.volume) else {
            throw HTTPError(400, "volume must be 0...200", param: "volume")
        }
        return SynthesisRequest(text: given.text, options: given.options, format: .wav)
    }

    private func speak(_ request: SynthesisRequest, into reply: inout WorkerFrame.ReplyWriter) throws {
        guard case .samples(let produce) = try engine.reply(ReplyRequest(request, delivery: .samples)) else {
            preconditionFailure("a samples delivery is samples")
        }
        _ = try produce(nil) { chunk in
            try reply.append(chunk)
            try reply.flush()
        }
        try reply.finish()
    }

    private static func setTimeout(_ option: Int32, seconds: Int, on connection: Int32) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}
