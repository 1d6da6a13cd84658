internal import CFFmpeg
import Foundation
import SpeakKit

/// Decodes uploads and files in any common audio format to mono 16-bit PCM at one sample rate
/// (16 kHz by default, what speech recognition wants).
///
/// WAV already at the wanted rate is read natively, sample for sample. Everything else (MP3, AAC in
/// M4A/MP4, raw AAC, Opus or Vorbis in WebM/Ogg, FLAC, WAV at other rates or depths) goes through
/// libavformat, libavcodec and libswresample, linked in process: the `ffmpeg` program is never run.
/// MP3 goes through FFmpeg too, because it honours the LAME gapless header (no encoder delay added)
/// and its resampler low-pass filters before decimating.
///
/// Errors, and what an HTTP caller should answer:
/// - `AudioFileError.notAudio`: the bytes are not audio we can read: empty, text, garbage, a
///   container with no audio stream, or so truncated or corrupt that nothing decodes. **400**.
/// - `AudioFileError.unsupported`: a recognised media file whose audio codec this FFmpeg build
///   cannot decode. **415**.
/// - `AudioFileError.tooLong`: longer than the caller's `maximumSeconds`; decoding stops there, so
///   a small file of hours of near-silent Opus never becomes gigabytes of samples. **413**.
/// - `FFmpegError`: FFmpeg failed on something other than the input (memory, resampler setup). **500**.
///
/// A file truncated mid-stream decodes to the audio before the cut, as a partial upload would.
public enum MediaDecoder {
    /// Decodes the file at `file`, recognised by its content, not its extension.
    public static func decode(file: URL, sampleRate: Int = 16000, maximumSeconds: Int? = nil) throws -> PCMBuffer {
        try decode(
            Data(contentsOf: file, options: .mappedIfSafe), sampleRate: sampleRate, maximumSeconds: maximumSeconds)
    }

    /// Decodes a whole media file held in memory; with `maximumSeconds`, throws
    /// `AudioFileError.tooLong` as soon as the audio runs past it.
    public static func decode(_ data: Data, sampleRate: Int = 16000, maximumSeconds: Int? = nil) throws -> PCMBuffer {
        precondition(sampleRate > 0, "sample rate must be positive")
        let maximumSamples =
            maximumSeconds.map { seconds in
                let (samples, overflow) = max(0, seconds).multipliedReportingOverflow(by: sampleRate)
                return overflow ? .max : samples
            } ?? .max
        guard !data.isEmpty else { throw AudioFileError.notAudio("empty input") }
        // A damaged header (a 1 Hz rate) is refused before FFmpeg would resample it 16000-fold.
        if WAV.isWAV(data) { _ = try WAV.format(of: data) }
        if WAV.isWAV(data), let pcm = try? WAV.decode(data), pcm.sampleRate == sampleRate {
            guard !pcm.samples.isEmpty else { throw AudioFileError.notAudio("WAV file without samples") }
            if pcm.samples.count > maximumSamples {
                throw AudioFileError.tooLong(limitSeconds: maximumSamples / sampleRate)
            }
            return pcm
        }
        _ = quiet
        return try data.withUnsafeBytes { bytes in
            let samples = try FFmpegDecoding(bytes: bytes, sampleRate: sampleRate, maximumSamples: maximumSamples).run()
            return PCMBuffer(sampleRate: sampleRate, samples: samples)
        }
    }

    /// FFmpeg logs to stderr by default; its failures reach callers as errors instead.
    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)
}

/// The bytes being decoded and the read position, reached by the AVIO callbacks through `opaque`.
private final class MemoryInput {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}

// C callbacks capture nothing: their state arrives as the `MemoryInput` behind `opaque`.
private func readMemory(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer else { return FFmpegError.endOfFile }
    let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
    let count = min(Int(size), input.bytes.count - input.position)
    guard count > 0 else { return FFmpegError.endOfFile }
    UnsafeMutableRawPointer(buffer).copyMemory(from: input.bytes.baseAddress! + input.position, byteCount: count)
    input.position += count
    return Int32(count)
}

private func seekMemory(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return -1 }
    let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
    let base: Int
    switch whence & ~Int32(AVSEEK_FORCE) {
    case Int32(AVSEEK_SIZE): return Int64(input.bytes.count)
    case SEEK_SET: base = 0
    case SEEK_CUR: base = input.position
    case SEEK_END: base = input.bytes.count
    default: return -1
    }
    let target = Int64(base) + offset
    guard target >= 0, target <= Int64(input.bytes.count) else { return -1 }
    input.position = Int(target)
    return target
}

/// One decode: demuxer over the memory input, the best audio stream's decoder, and a resampler
/// to mono 16-bit at the wanted rate. Every FFmpeg object is freed when it goes.
private final class FFmpegDecoding {
    private let input: MemoryInput
    private let sampleRate: Int
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    /// What the resampler was set up for: a decoder may change rate or layout mid-stream.
    private var resamplerInput: (rate: Int32, format: Int32, channels: Int32)?
    private var samples: [Int16] = []
    private let maximumSamples: Int

    init(bytes: UnsafeRawBufferPointer, sampleRate: Int, maximumSamples: Int) {
        input = MemoryInput(bytes: bytes)
        self.sampleRate = sampleRate
        self.maximumSamples = maximumSamples
    }

    deinit {
        swr_free(&resampler)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
        // A custom AVIOContext stays ours, and FFmpeg may have replaced its buffer.
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    func run() throws -> [Int16] {
        let stream = try open()
        try decode(stream: stream)
        guard !samples.isEmpty else { throw AudioFileError.notAudio("no audio decoded") }
        return samples
    }

    /// Opens the container and the decoder of its best audio stream; returns that stream's index.
    private func open() throws -> Int32 {
        let bufferSize: Int32 = 32 * 1024
        guard let buffer = av_malloc(Int(bufferSize)) else { throw FFmpegError.outOfMemory("av_malloc") }
        let opaque = Unmanaged.passUnretained(input).toOpaque()
        io = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 0, opaque, readMemory, nil, seekMemory)
        guard let io else {
            av_free(buffer)
            throw FFmpegError.outOfMemory("avio_alloc_context")
        }
        guard var context = avformat_alloc_context() else {
            throw FFmpegError.outOfMemory("avformat_alloc_context")
        }
        context.pointee.pb = io
        // On failure avformat_open_input frees the context and leaves our pointer nil.
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        let openCode = avformat_open_input(&opened, nil, nil, nil)
        guard openCode >= 0, let opened else {
            throw AudioFileError.notAudio("not a media file FFmpeg can open (\(FFmpegError.message(openCode)))")
        }
        context = opened
        format = opened
        let infoCode = avformat_find_stream_info(context, nil)
        guard infoCode >= 0 else {
            throw AudioFileError.notAudio("unreadable media (\(FFmpegError.message(infoCode)))")
        }
        let formatName = String(cString: context.pointee.iformat.pointee.name)
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0 else { throw AudioFileError.notAudio("no audio stream in \(formatName)") }
        let parameters = context.pointee.streams[Int(index)]!.pointee.codecpar!
        guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AudioFileError.unsupported(
                "\(String(cString: avcodec_get_name(parameters.pointee.codec_id))) audio in \(formatName)")
        }
        codec = avcodec_alloc_context3(decoder)
        guard let codec else { throw FFmpegError.outOfMemory("avcodec_alloc_context3") }
        try FFmpegError.check(avcodec_parameters_to_context(codec, parameters), "avcodec_parameters_to_context")
        let codecCode = avcodec_open2(codec, decoder, nil)
        guard codecCode >= 0 else {
            let reason = FFmpegError.message(codecCode)
            throw AudioFileError.unsupported(
                "\(String(cString: decoder.pointee.name)) audio in \(formatName) (\(reason))")
        }
        return index
    }

    /// Reads packets to the end and decodes them. A corrupt packet is skipped, as players do; a read
    /// error ends the input (a truncated file) and keeps what came before.
    private func decode(stream: Int32) throws {
        guard let packet = av_packet_alloc() else { throw FFmpegError.outOfMemory("av_packet_alloc") }
        var packetSlot: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetSlot) }
        guard let frame = av_frame_alloc() else { throw FFmpegError.outOfMemory("av_frame_alloc") }
        var frameSlot: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&frameSlot) }
        var lastError: FFmpegError?

        while av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != FFmpegError.again {
                lastError = FFmpegError(code: sent, function: "avcodec_send_packet")
            }
            if let error = try receive(into: frame) { lastError = error }
        }
        avcodec_send_packet(codec, nil)  // drains the decoder's delayed frames
        if let error = try receive(into: frame) { lastError = error }
        try flushResampler()
        if samples.isEmpty, let lastError { throw AudioFileError.notAudio("corrupt audio (\(lastError.message))") }
    }

    /// Takes every frame the decoder has ready; returns a decoding error, if one stopped it.
    private func receive(into frame: UnsafeMutablePointer<AVFrame>) throws -> FFmpegError? {
        while true {
            let code = avcodec_receive_frame(codec, frame)
            if code == FFmpegError.again || code == FFmpegError.endOfFile { return nil }
            if code < 0 { return FFmpegError(code: code, function: "avcodec_receive_frame") }
            defer { av_frame_unref(frame) }
            try convert(frame)
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        let shape = (
            rate: frame.pointee.sample_rate, format: frame.pointee.format, channels: frame.pointee.ch_layout.nb_channels
        )
        if resamplerInput == nil || resamplerInput! != shape {
            try flushResampler()
            try makeResampler(for: frame)
            resamplerInput = shape
        }
        // swr_convert wants `const uint8_t **`; the frame holds `uint8_t **`: same pointers.
        let inputs = UnsafeMutableRawPointer(frame.pointee.extended_data)
            .map { $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        try append(converting: inputs, count: frame.pointee.nb_samples)
    }

    private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>) throws {
        swr_free(&resampler)
        var output = AVChannelLayout()
        av_channel_layout_default(&output, 1)
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        // Some demuxers give only a channel count (WAV, raw formats): assume the usual layout for it.
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&layout, frame.pointee.ch_layout.nb_channels)
        } else {
            try FFmpegError.check(av_channel_layout_copy(&layout, &frame.pointee.ch_layout), "av_channel_layout_copy")
        }
        try FFmpegError.check(
            swr_alloc_set_opts2(
                &resampler, &output, AV_SAMPLE_FMT_S16, Int32(sampleRate),
                &layout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2")
        try FFmpegError.check(swr_init(resampler), "swr_init")
    }

    /// Runs `count` input samples (none: flush) through the resampler onto `samples`.
    private func append(converting inputs: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32) throws {
        let room = try FFmpegError.check(swr_get_out_samples(resampler, count), "swr_get_out_samples")
        guard room > 0 else { return }
        let start = samples.count
        samples.append(contentsOf: repeatElement(0, count: Int(room)))
        let made = try samples.withUnsafeMutableBufferPointer { buffer in
            var output: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress! + start)
                .assumingMemoryBound(to: UInt8.self)
            return try FFmpegError.check(swr_convert(resampler, &output, room, inputs, count), "swr_convert")
        }
        samples.removeLast(Int(room - made))
        if samples.count > maximumSamples {
            throw AudioFileError.tooLong(limitSeconds: maximumSamples / sampleRate)
        }
    }

    private func flushResampler() throws {
        guard resampler != nil else { return }
        try append(converting: nil, count: 0)
    }
}
