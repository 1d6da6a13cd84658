import FoundationEssentials
import Glibc
import SpeakKit

/// A neural voice on the command line: its model takes a second or two to load, so when a local
/// `speak serve` is running (``LocalSocket``) the text goes to it and its streamed PCM is played;
/// otherwise, or if it refuses before any audio, `local` synthesises here.
///
/// The request goes whole, in the frame protocol its worker processes speak (``WorkerFrame``), so
/// rate, pitch, volume and SSML arrive as given and the PCM comes back at the model's own rate: a
/// file or the device gets what this command would have made itself.
package struct LocalServerHandoff: Synthesizer {
    package let local: any Synthesizer
    package let socketPath: String?

    package init(local: any Synthesizer, socketPath: String? = LocalSocket.path) {
        self.local = local
        self.socketPath = socketPath
    }

    package var features: SynthesisFeatures { local.features }
    package func kind(of voice: Voice) -> String { local.kind(of: voice) }

    package func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)?,
        onChunk: (PCMChunk) throws -> Void
    ) throws {
        if let socketPath {
            var delivered = false
            do {
                try LocalServer.speak(SynthesisRequest(text: text, options: options), at: socketPath) { chunk in
                    delivered = true
                    try onChunk(chunk)
                }
                return
            } catch let error where !delivered && !(error is PlaybackInterrupted) {
                // Nothing played yet: synthesising here repeats nothing.
            }
        }
        try local.synthesize(text, options: options, onProgress: onProgress, onChunk: onChunk)
    }

    package func problems(with voices: [Voice]) -> [String: String] { local.problems(with: voices) }
    package func sampleRate(of voice: Voice) -> Int? { local.sampleRate(of: voice) }
    package func speakers(of voice: Voice) -> [String] { local.speakers(of: voice) }
    package func voice(_ voice: Voice, speakingAs speaker: String) -> Voice? { local.voice(voice, speakingAs: speaker) }
    package func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? {
        try local.phonemes(of: text, options: options, ipa: ipa)
    }
}

/// The local server failed after some of its audio was played: speaking the text here would say
/// it twice, so the command ends with why.
package struct LocalServerFailure: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { "the local speak serve stopped mid-reply: \(reason)" }
}

/// A running `speak serve` of this user's, on its local socket.
enum LocalServer {
    /// Seconds without a frame before the server counts as gone: a model loads in about two.
    static let patience = 30

    /// Sends `request` and hands the reply's PCM to `onChunk` as it arrives. Errors of `onChunk`
    /// come back as they are; the server's are ``LocalServerFailure``.
    static func speak(_ request: SynthesisRequest, at path: String, onChunk: (PCMChunk) throws -> Void) throws {
        let descriptor = try connect(path)
        defer { close(descriptor) }
        var consumerError: (any Error)?
        do {
            let line = try request.line()
            try line.withUnsafeBytes { bytes in
                try SystemCall.writeAll("send", bytes) { pointer, count, _ in
                    send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
                }
            }
            try WorkerFrame.receiveReply(from: descriptor) { chunk in
                do { try onChunk(chunk) } catch {
                    consumerError = error
                    throw error
                }
            }
        } catch {
            if let consumerError { throw consumerError }
            throw LocalServerFailure(reason: reason(error))
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as SystemCallError where error.code == EPIPE: "it closed the connection"
        case let error as SystemCallError where error.code == EAGAIN: "it sent nothing for \(patience) s"
        case let error as WorkerFrame.Malformed: "it \(error)"
        default: String(describing: error)
        }
    }

    private static func connect(_ path: String) throws -> Int32 {
        let descriptor = Socket.connect(unixPath: path)
        guard descriptor >= 0 else { throw SystemCallError("connect") }
        // A server that stops answering mid-reply must not hang the command for ever.
        var timeout = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Only a server of this user's hears the text, wherever $SPEAK_SOCKET points.
        guard Socket.peerUser(descriptor) == getuid() else {
            close(descriptor)
            throw LocalServerFailure(reason: "the socket's server is another user's")
        }
        return descriptor
    }
}
