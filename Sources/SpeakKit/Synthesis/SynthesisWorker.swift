import FoundationEssentials
import Glibc

/// The child side of ``WorkerPool``: `speak worker` runs this loop. espeak-ng is one global
/// instance per process, so a server synthesises on several cores through several such processes.
///
/// It speaks the frame protocol (``WorkerFrame``): one ``SynthesisRequest`` per line in, `start`,
/// `data`…, `end` (or `error`) out. The worker exits when its input ends. The server encodes
/// (``SpeechEngine``), as it does for every engine.
public enum SynthesisWorker {
    public static func serve(input: Int32, output: Int32) {
        // A server that went away must come back as a failed write, not kill the worker silently.
        signal(SIGPIPE, SIG_IGN)
        // Frames get their own descriptor and standard output goes to standard error, so a stray
        // print (from a library, say) can never corrupt the frame stream.
        let frames = WorkerFrame.Writer(descriptor: dup(output))
        if output == STDOUT_FILENO { dup2(STDERR_FILENO, STDOUT_FILENO) }
        // Load espeak-ng now, while the server is still starting, not on the first request.
        _ = try? EspeakSynthesizer.shared()

        var lines = WorkerFrame.RequestReader(descriptor: input)
        while let line = try? lines.next() {
            var reply = WorkerFrame.ReplyWriter(frames)
            do {
                try speak(line, into: &reply)
            } catch {
                // If even this write fails, the server has gone: stop.
                do { try reply.fail(error) } catch { return }
            }
        }
    }

    private static func speak(_ line: Data, into reply: inout WorkerFrame.ReplyWriter) throws {
        let request = try SynthesisRequest(line: line)
        let synthesizer = try EspeakSynthesizer.shared()
        // The rate goes out first: the server opens its encoder (or device) meanwhile.
        try reply.start(sampleRate: synthesizer.sampleRate)
        try synthesizer.synthesize(request.text, options: request.options) { (chunk: PCMChunk) in
            try reply.append(chunk)
        }
        try reply.finish()
    }
}
