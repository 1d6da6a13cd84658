internal import CFFmpeg
import Foundation
import SpeakKit

extension Codecs {
    /// SpeakKit's codecs and FFmpeg's: the Opus (Ogg), AAC (ADTS) and FLAC encoders this FFmpeg
    /// build has, and the decoder of every container it reads. SpeakKit links no FFmpeg (the light
    /// `speak` stays small); a program that carries SpeakMedia composes these.
    public static let ffmpeg = Codecs(
        replyEncoders: Dictionary(
            uniqueKeysWithValues: [ReplyFormat.opus, .aac, .flac].compactMap { format in
                FFmpegEncoder.Recipe(format).codec() == nil
                    ? nil : (format, { try FFmpegEncoder(format: format, inputRate: $0) } as ReplyEncoder.Maker)
            }),
        decoder: MediaDecoder())
}

/// One reply through an FFmpeg encoder and muxer into memory (or a file: ``MediaFileWriter``): mono
/// 16-bit PCM is resampled to the codec's rate and sample format, cut into the codec's frames,
/// encoded and muxed; each call returns the container bytes written meanwhile (none for a file).
/// ``finish()`` drains the resampler, sends the short last frame, flushes the encoder and writes
/// the trailer, so nothing is lost at the end (Ogg's last page carries the end granule that trims
/// the padding).
final class FFmpegEncoder: StreamingAudioEncoder {
    /// How each format is made.
    struct Recipe {
        var encoders: [String]
        var muxer: String
        /// The codec's rate, or `nil` for the input's own.
        var sampleRate: Int32?
        /// The encoder's sample format, or `nil` for the first it lists.
        var sampleFormat: AVSampleFormat?
        var bitRate: Int64
        /// Options for the muxer: Ogg holds a page for up to a second by default, too long to stream.
        var muxerOptions: [(String, String)] = []

        init(_ format: ReplyFormat) {
            switch format {
            case .opus:
                // libopus is Debian's; FFmpeg's own Opus encoder is experimental.
                self.init(
                    encoders: ["libopus", "opus"], muxer: "ogg", sampleRate: 48000, sampleFormat: AV_SAMPLE_FMT_S16,
                    bitRate: 32000,
                    muxerOptions: [("page_duration", "100000")])
            case .aac:
                self.init(
                    encoders: ["aac"], muxer: "adts", sampleRate: nil, sampleFormat: AV_SAMPLE_FMT_FLTP, bitRate: 48000)
            default:
                self.init(
                    encoders: ["flac"], muxer: "flac", sampleRate: nil, sampleFormat: AV_SAMPLE_FMT_S16, bitRate: 0)
            }
        }

        init(
            encoders: [String], muxer: String, sampleRate: Int32?, sampleFormat: AVSampleFormat?, bitRate: Int64,
            muxerOptions: [(String, String)] = []
        ) {
            self.encoders = encoders
            self.muxer = muxer
            self.sampleRate = sampleRate
            self.sampleFormat = sampleFormat
            self.bitRate = bitRate
            self.muxerOptions = muxerOptions
        }

        func codec() -> UnsafePointer<AVCodec>? { encoders.lazy.compactMap { avcodec_find_encoder_by_name($0) }.first }
    }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var resampler: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let output: MuxerOutput
    /// Converted samples waiting to fill a frame, in the codec's (mono) sample format.
    private var pending: [UInt8] = []
    private let bytesPerSample: Int
    private let codecRate: Int32
    private var nextPTS: Int64 = 0
    // Every stored property is set before the first FFmpeg allocation, so a throw from then on
    // runs deinit and frees what was made (a half-made instance would skip deinit and leak it).

    /// The one stream, made in init; its time base is the muxer's once the header is written.
    private var stream: UnsafeMutablePointer<AVStream> { format!.pointee.streams[0]! }
    /// Samples per frame: the codec's, or 20 ms for a codec that takes any size.
    private var frameSize: Int {
        codec!.pointee.frame_size > 0 ? Int(codec!.pointee.frame_size) : Int(codecRate / 50)
    }

    convenience init(format replyFormat: ReplyFormat, inputRate: Int) throws {
        try self.init(recipe: Recipe(replyFormat), inputRate: inputRate, output: MemoryOutput())
    }

    /// Encodes into `output`: memory (a reply), or a file (`speak -o`), which the muxer may seek.
    init(recipe: Recipe, inputRate: Int, output: MuxerOutput) throws {
        _ = Self.quiet
        guard let encoder = recipe.codec() else {
            throw AudioFileError.unsupported(
                "this FFmpeg build has no \(recipe.encoders.joined(separator: " or ")) encoder")
        }
        self.output = output
        let sampleFormat = recipe.sampleFormat ?? encoder.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_S16
        codecRate = recipe.sampleRate ?? Int32(inputRate)
        bytesPerSample = Int(av_get_bytes_per_sample(sampleFormat))

        try FFmpegError.check(
            avformat_alloc_output_context2(&format, nil, recipe.muxer, nil), "avformat_alloc_output_context2")
        guard let format, let stream = avformat_new_stream(format, nil) else {
            throw FFmpegError.outOfMemory("avformat_new_stream")
        }
        codec = avcodec_alloc_context3(encoder)
        guard let codec else { throw FFmpegError.outOfMemory("avcodec_alloc_context3") }
        codec.pointee.sample_rate = codecRate
        codec.pointee.sample_fmt = sampleFormat
        av_channel_layout_default(&codec.pointee.ch_layout, 1)
        if recipe.bitRate > 0 { codec.pointee.bit_rate = recipe.bitRate }
        codec.pointee.time_base = AVRational(num: 1, den: codecRate)
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
        }
        try FFmpegError.check(avcodec_open2(codec, encoder, nil), "avcodec_open2")
        try FFmpegError.check(
            avcodec_parameters_from_context(stream.pointee.codecpar, codec), "avcodec_parameters_from_context")
        stream.pointee.time_base = codec.pointee.time_base

        let bufferSize: Int32 = 4096
        guard let buffer = av_malloc(Int(bufferSize)) else { throw FFmpegError.outOfMemory("av_malloc") }
        io = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1, Unmanaged.passUnretained(output).toOpaque(), nil,
            writeOutput, output.isSeekable ? seekOutput : nil)
        guard let io else {
            av_free(buffer)
            throw FFmpegError.outOfMemory("avio_alloc_context")
        }
        format.pointee.pb = io

        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, 1)
        try FFmpegError.check(
            swr_alloc_set_opts2(
                &resampler, &codec.pointee.ch_layout, sampleFormat, codecRate, &inputLayout, AV_SAMPLE_FMT_S16,
                Int32(inputRate), 0, nil),
            "swr_alloc_set_opts2")
        try FFmpegError.check(swr_init(resampler), "swr_init")
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard frame != nil, packet != nil else { throw FFmpegError.outOfMemory("av_frame_alloc") }

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in recipe.muxerOptions { av_dict_set(&options, key, value, 0) }
        try FFmpegError.check(avformat_write_header(format, &options), "avformat_write_header")
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        swr_free(&resampler)
        avcodec_free_context(&codec)
        // Our own AVIOContext: FFmpeg frees neither it nor its (possibly replaced) buffer.
        if io != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        }
        if let format { format.pointee.pb = nil }
        avformat_free_context(format)
    }

    func encode(_ samples: UnsafeBufferPointer<Int16>) throws -> Data {
        // No input is how swr_convert is told to flush: an empty chunk must not be that.
        guard !samples.isEmpty else { return Data() }
        try convert(samples.baseAddress, count: Int32(samples.count))
        try sendFullFrames()
        return output.take(flushing: format!.pointee.pb)
    }

    func finish() throws -> Data {
        try convert(nil, count: 0)
        try sendFullFrames()
        if !pending.isEmpty { try send(samples: pending.count / bytesPerSample) }
        try FFmpegError.check(avcodec_send_frame(codec, nil), "avcodec_send_frame")
        try writePackets()
        try FFmpegError.check(av_write_trailer(format), "av_write_trailer")
        return output.take(flushing: format!.pointee.pb)
    }

    /// Runs `count` samples (none: the resampler's delayed ones) onto `pending`.
    private func convert(_ samples: UnsafePointer<Int16>?, count: Int32) throws {
        let room = try FFmpegError.check(swr_get_out_samples(resampler, count), "swr_get_out_samples")
        guard room > 0 else { return }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: Int(room) * bytesPerSample))
        let made = try pending.withUnsafeMutableBufferPointer { buffer in
            var out: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + start
            var input: UnsafePointer<UInt8>? = samples.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
            return try withUnsafeMutablePointer(to: &input) { inputs in
                try FFmpegError.check(
                    swr_convert(resampler, &out, room, samples == nil ? nil : inputs, count), "swr_convert")
            }
        }
        pending.removeLast((Int(room) - Int(made)) * bytesPerSample)
    }

    private func sendFullFrames() throws {
        while pending.count >= frameSize * bytesPerSample { try send(samples: frameSize) }
    }

    /// The first `samples` of `pending` as one frame, and the packets it completes.
    private func send(samples: Int) throws {
        guard let frame else { return }
        av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(samples)
        frame.pointee.format = codec!.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = codecRate
        try FFmpegError.check(
            av_channel_layout_copy(&frame.pointee.ch_layout, &codec!.pointee.ch_layout), "av_channel_layout_copy")
        try FFmpegError.check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        let bytes = samples * bytesPerSample
        pending.withUnsafeBytes { source in
            frame.pointee.extended_data[0]!.update(from: source.bindMemory(to: UInt8.self).baseAddress!, count: bytes)
        }
        pending.removeFirst(bytes)
        frame.pointee.pts = nextPTS
        nextPTS += Int64(samples)
        try FFmpegError.check(avcodec_send_frame(codec, frame), "avcodec_send_frame")
        try writePackets()
    }

    private func writePackets() throws {
        guard let packet else { return }
        while true {
            let code = avcodec_receive_packet(codec, packet)
            if code == FFmpegError.again || code == FFmpegError.endOfFile { return }
            try FFmpegError.check(code, "avcodec_receive_packet")
            defer { av_packet_unref(packet) }
            av_packet_rescale_ts(packet, codec!.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            try FFmpegError.check(av_write_frame(format, packet), "av_write_frame")
        }
    }

    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)
}

/// Where the muxer's bytes go, reached by the AVIO callbacks through `opaque`.
class MuxerOutput {
    /// Whether the muxer may seek back (to complete a header or write an index at the end).
    var isSeekable: Bool { false }

    /// Takes `bytes`; returns how many, or a negative `AVERROR`.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 { Int32(bytes.count) }

    /// `lseek`'s answer for the muxer's stream, or, for `AVSEEK_SIZE`, its size; negative on failure.
    func seek(_ offset: Int64, whence: Int32) -> Int64 { -1 }

    /// Pushes the AVIO buffer through, then hands over what was written and is kept in memory.
    func take(flushing io: UnsafeMutablePointer<AVIOContext>?) -> Data {
        avio_flush(io)
        return Data()
    }
}

/// The bytes the muxer wrote since they were last taken.
private final class MemoryOutput: MuxerOutput {
    var data = Data()

    override func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        data.append(bytes.baseAddress!, count: bytes.count)
        return Int32(bytes.count)
    }

    override func take(flushing io: UnsafeMutablePointer<AVIOContext>?) -> Data {
        avio_flush(io)
        defer { data = Data() }
        return data
    }
}

// C callbacks capture nothing: their state arrives as the `MuxerOutput` behind `opaque`.
private func writeOutput(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer, size > 0 else { return 0 }
    return Unmanaged<MuxerOutput>.fromOpaque(opaque).takeUnretainedValue()
        .write(UnsafeBufferPointer(start: buffer, count: Int(size)))
}

private func seekOutput(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return -1 }
    return Unmanaged<MuxerOutput>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
}
