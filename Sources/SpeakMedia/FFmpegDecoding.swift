internal import CFFmpeg
import Foundation
import SpeakKit

/// Where FFmpeg reads the media from, reached by the AVIO callbacks through `opaque`: bytes in
/// memory, or a file read with `pread` a buffer at a time, so that a long file is never held whole.
final class MediaInput {
    enum Source {
        case memory(UnsafeRawBufferPointer)
        /// A descriptor the caller keeps open, read from offset 0 to `size`.
        case file(descriptor: Int32, size: Int)
    }

    let source: Source
    var position = 0

    init(_ source: Source) { self.source = source }

    var size: Int {
        switch source {
        case .memory(let bytes): bytes.count
        case .file(_, let size): size
        }
    }

    /// Copies up to `count` bytes at the position into `buffer`; 0 at the end, -1 on a read error.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let count = min(count, size - position)
        guard count > 0 else { return 0 }
        switch source {
        case .memory(let bytes):
            buffer.copyMemory(from: bytes.baseAddress! + position, byteCount: count)
            position += count
            return count
        case .file(let descriptor, _):
            while true {
                let got = pread(descriptor, buffer, count, off_t(position))
                if got < 0 && errno == EINTR { continue }
                if got > 0 { position += got }
                return got
            }
        }
    }
}

// C callbacks capture nothing: their state arrives as the `MediaInput` behind `opaque`.
private func readInput(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer else { return FFmpegError.endOfFile }
    let input = Unmanaged<MediaInput>.fromOpaque(opaque).takeUnretainedValue()
    let count = input.read(into: buffer, count: Int(size))
    // A read error ends the input as its end would: what came before is kept.
    return count > 0 ? Int32(count) : FFmpegError.endOfFile
}

private func seekInput(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return -1 }
    let input = Unmanaged<MediaInput>.fromOpaque(opaque).takeUnretainedValue()
    let base: Int
    switch whence & ~Int32(AVSEEK_FORCE) {
    case Int32(AVSEEK_SIZE): return Int64(input.size)
    case SEEK_SET: base = 0
    case SEEK_CUR: base = input.position
    case SEEK_END: base = input.size
    default: return -1
    }
    let target = Int64(base) + offset
    guard target >= 0, target <= Int64(input.size) else { return -1 }
    input.position = Int(target)
    return target
}

/// One decode: demuxer over the input, the best audio stream's decoder, and a resampler to mono
/// 16-bit at the wanted rate, run a piece at a time (``read(upTo:)``) or whole (``run()``). Every
/// FFmpeg object is freed when it goes.
final class FFmpegDecoding {
    private let input: MediaInput
    private let sampleRate: Int
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var stream: Int32 = -1
    /// What the resampler was set up for: a decoder may change rate or layout mid-stream.
    private var resamplerInput: (rate: Int32, format: Int32, channels: Int32)?
    /// Decoded samples not yet handed out.
    private var samples: [Int16] = []
    /// Every sample decoded so far, handed out or not: what the limit is checked against.
    private var produced = 0
    private var finished = false
    /// Where the resampler writes, before the samples are kept (or, skipping, not).
    private var scratch = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 0)
    private var discarding = false
    private var lastError: FFmpegError?
    private let maximumSamples: Int

    /// Opens the container and its best audio stream's decoder; fails here on input that is not audio.
    init(input: MediaInput, sampleRate: Int, maximumSamples: Int) throws {
        self.input = input
        self.sampleRate = sampleRate
        self.maximumSamples = maximumSamples
        try open()
    }

    deinit {
        scratch.deallocate()
        av_packet_free(&packet)
        av_frame_free(&frame)
        swr_free(&resampler)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
        // A custom AVIOContext stays ours, and FFmpeg may have replaced its buffer.
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
    }

    /// Decodes to the end and returns every sample.
    func run() throws -> [Int16] {
        while try decodeMore() {}
        return samples
    }

    /// Decodes the rest without keeping it; returns how many samples it had (pending ones too).
    func skipToEnd() throws -> Int {
        let pending = samples.count
        samples = []
        discarding = true
        defer { discarding = false }
        let before = produced
        while try decodeMore() {}
        return pending + produced - before
    }

    /// The next samples, up to `count` of them, decoding as little as that needs; empty at the end.
    func read(upTo count: Int) throws -> [Int16] {
        while samples.count < count, try decodeMore() {}
        let taken = Array(samples.prefix(count))
        samples.removeFirst(taken.count)
        return taken
    }

    /// Opens the container and the decoder of its best audio stream.
    private func open() throws {
        let bufferSize: Int32 = 32 * 1024
        guard let buffer = av_malloc(Int(bufferSize)) else { throw FFmpegError.outOfMemory("av_malloc") }
        let opaque = Unmanaged.passUnretained(input).toOpaque()
        io = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 0, opaque, readInput, nil, seekInput)
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
        guard let packet = av_packet_alloc() else { throw FFmpegError.outOfMemory("av_packet_alloc") }
        self.packet = packet
        guard let frame = av_frame_alloc() else { throw FFmpegError.outOfMemory("av_frame_alloc") }
        self.frame = frame
        stream = index
    }

    /// Decodes one more packet of the stream (at the end, drains the decoder and the resampler);
    /// false once there is nothing more. A corrupt packet is skipped, as players do; a read error
    /// ends the input (a truncated file) and keeps what came before.
    private func decodeMore() throws -> Bool {
        guard !finished, let packet, let frame else { return false }
        while av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != FFmpegError.again {
                lastError = FFmpegError(code: sent, function: "avcodec_send_packet")
            }
            if let error = try receive(into: frame) { lastError = error }
            return true
        }
        finished = true
        avcodec_send_packet(codec, nil)  // drains the decoder's delayed frames
        if let error = try receive(into: frame) { lastError = error }
        try flushResampler()
        if produced == 0, let lastError { throw AudioFileError.notAudio("corrupt audio (\(lastError.message))") }
        guard produced > 0 else { throw AudioFileError.notAudio("no audio decoded") }
        return false
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

    /// Runs `count` input samples (none: flush) through the resampler onto `samples`; throws
    /// `AudioFileError.tooLong` as soon as the samples made run past the limit.
    private func append(converting inputs: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32) throws {
        let room = try FFmpegError.check(swr_get_out_samples(resampler, count), "swr_get_out_samples")
        guard room > 0 else { return }
        if scratch.count < Int(room) {
            scratch.deallocate()
            scratch = .allocate(capacity: Int(room))
        }
        var output: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(scratch.baseAddress!)
            .assumingMemoryBound(to: UInt8.self)
        let made = try FFmpegError.check(swr_convert(resampler, &output, room, inputs, count), "swr_convert")
        if !discarding { samples.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<Int(made)])) }
        produced += Int(made)
        if produced > maximumSamples {
            throw AudioFileError.tooLong(limitSeconds: maximumSamples / sampleRate)
        }
    }

    private func flushResampler() throws {
        guard resampler != nil else { return }
        try append(converting: nil, count: 0)
    }
}
