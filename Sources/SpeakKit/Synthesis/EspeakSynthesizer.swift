internal import CEspeakNG
import FoundationEssentials
import Glibc

/// Speech synthesis on libespeak-ng, linked in process.
///
/// espeak-ng keeps one global, non-thread-safe instance per process, so there is one
/// `EspeakSynthesizer` (``shared()``) and every call into it is serialised by a lock.
/// Its own properties are constants; espeak-ng's global state, which Swift cannot see, is what
/// `lock` guards.
public final class EspeakSynthesizer: Synthesizer, Sendable {
    /// The sample rate of the PCM espeak-ng produces (22050 Hz for its own voices).
    public let sampleRate: Int
    /// The rate espeak-ng's own voices speak at, known before it is loaded.
    public static let usualSampleRate = 22050
    /// Held around every call into libespeak-ng (also by extensions in other files).
    let lock = ThreadLock()
    /// libespeak-ng's functions, opened with the synthesizer (see CEspeakNG.h).
    let api: SpeakEspeak
    /// espeak-ng's data directory (`…/espeak-ng-data`), where its voice files are.
    private let dataPath: String

    public var features: SynthesisFeatures { [.ssml, .rate, .pitch, .volume, .streaming] }
    public func kind(of voice: Voice) -> String { "espeak-ng" }

    public func sampleRate(of voice: Voice) -> Int? { sampleRate }

    /// The engine's name in voice files.
    public static let engineName = "espeak"

    private static let instance = Result { () throws(EspeakError) in try EspeakSynthesizer() }

    /// libespeak-ng's functions, opened once per process.
    private static let library = Result { () throws(EspeakError) -> SpeakEspeak in
        var api = SpeakEspeak()
        var reason = [CChar](repeating: 0, count: 1024)
        guard speak_espeak_open(&api, &reason, reason.count) == 0 else {
            let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw EspeakError(code: -1, function: "dlopen", message: message)
        }
        return api
    }

    /// Opens libespeak-ng without loading its data. `speak TEXT` calls it just before
    /// the device opens: the two load libraries, and the dynamic loader lets one do so at a time.
    public static func openLibrary() { _ = try? library.get() }

    /// The process-wide synthesizer, initialised on first use.
    public static func shared() throws(EspeakError) -> EspeakSynthesizer { try instance.get() }

    /// Starts opening libespeak-ng and loading its data (most of its start) on another thread, so it
    /// overlaps the caller's own start-up (reading voices); the first `shared()` waits for it.
    public static func prepareInBackground() {
        startDetachedThread { _ = try? shared() }
    }

    /// The start-up work of espeak-ng's own voices, for a command whose usual voice they speak.
    public static let warmUp = SynthesisWarmUp(
        sampleRate: usualSampleRate, openLibrary: openLibrary, prepareInBackground: prepareInBackground)

    private init() throws(EspeakError) {
        let api = try Self.library.get()
        self.api = api
        // Short buffers: the first chunk reaches the player after 20 ms of audio is synthesised.
        let rate = api.Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 20, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else {
            throw EspeakError(code: rate, function: "espeak_Initialize", message: "cannot load espeak-ng-data")
        }
        sampleRate = Int(rate)
        var path: UnsafePointer<CChar>?
        _ = api.Info(&path)
        dataPath = path.map { String(cString: $0) } ?? ""
        api.SetSynthCallback(synthCallback)
    }

    /// Synthesises `text`, handing each chunk of mono 16-bit PCM to `onChunk` as soon as espeak-ng
    /// produces it. `onProgress` receives the fraction of the text spoken so far.
    /// An error thrown by `onChunk` stops synthesis and is rethrown.
    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)? = nil,
        onChunk: (PCMChunk) throws -> Void
    ) throws {
        let rate = sampleRate
        try synthesize(text, options: options, onProgress: onProgress) { (samples: UnsafeBufferPointer<Int16>) in
            try onChunk(PCMChunk(samples: samples, sampleRate: rate))
        }
    }

    /// As ``synthesize(_:options:onProgress:onChunk:)-…``, with bare samples at ``sampleRate``.
    public func synthesize(
        _ text: String, options: SpeechOptions, onProgress: ((Double) -> Void)? = nil,
        onSamples: (UnsafeBufferPointer<Int16>) throws -> Void
    ) throws {
        let voice = try EspeakVoiceSettings(of: options.voice)
        try withoutActuallyEscaping(onSamples) { onSamples in
            let sink = ChunkSink(
                onChunk: onSamples, onProgress: onProgress, characters: text.count, sampleRate: sampleRate)
            try lock.withLock {
                try configure(options, voice)
                try speak(text, options: options, voice, userData: Unmanaged.passUnretained(sink).toOpaque())
            }
            if let error = sink.error { throw error }
        }
    }

    public func phonemes(of text: String, options: SpeechOptions, ipa: Bool) throws -> String? {
        try phonemes(text, options: options, ipa: ipa)
    }

    /// What espeak-ng would say, as `espeak-ng -x` (mnemonics) or `espeak-ng --ipa` prints it.
    public func phonemes(_ text: String, options: SpeechOptions, ipa: Bool) throws -> String {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else {
            throw EspeakError(code: -1, function: "open_memstream", message: String(cString: strerror(errno)))
        }
        defer { free(buffer) }
        let sink = ChunkSink(onChunk: { _ in }, onProgress: nil, characters: text.count, sampleRate: sampleRate)
        let voice = try EspeakVoiceSettings(of: options.voice)
        try lock.withLock {
            defer { api.SetPhonemeTrace(0, nil) }
            api.SetPhonemeTrace(Int32(ipa ? espeakPHONEMES_IPA : espeakPHONEMES_SHOW), stream)
            try configure(options, voice)
            try speak(text, options: options, voice, userData: Unmanaged.passUnretained(sink).toOpaque())
        }
        fclose(stream)
        return buffer.map { String(cString: $0) } ?? ""
    }

    private func configure(_ options: SpeechOptions, _ voice: EspeakVoiceSettings) throws {
        do { try selectVoice(voice.espeakName) } catch {
            guard error.code == EE_NOT_FOUND.rawValue else { throw error }
            throw VoiceError.invalidSettings(
                options.voice.name, Self.engineName,
                "espeak-ng has no voice '\(voice.espeakName)' (espeak-ng --voices lists them)")
        }
        let rate = min(
            max(options.effectiveRate, SpeechOptions.rateRange.lowerBound), SpeechOptions.rateRange.upperBound)
        try EspeakError.check(api.SetParameter(espeakRATE, Int32(rate), 0).rawValue, "espeak_SetParameter(rate)")
        try EspeakError.check(
            api.SetParameter(espeakPITCH, Int32(options.effectivePitch), 0).rawValue, "espeak_SetParameter(pitch)")
        try EspeakError.check(
            api.SetParameter(espeakVOLUME, Int32(options.volume), 0).rawValue, "espeak_SetParameter(volume)")
    }

    /// How ``selectVoice(_:)`` found a voice.
    enum VoiceSelection: Equatable {
        /// Its file, named by its identifier (`gmw/en-US`): one file read.
        case file
        /// espeak-ng's search of every voice file.
        case search
    }

    /// Makes `name` (`gmw/en-US`, `sw+f3`) espeak-ng's current voice. Call it holding `lock`.
    ///
    /// `espeak_SetVoiceByName` reads all ~360 voice files of espeak-ng-data to find a name (a
    /// large part of `speak TEXT`'s start) unless the name, lowercased, is a file's path under
    /// `voices/` or `lang/`, which `gmw/en-US` never is. So a name that is a voice file's
    /// identifier is opened here, in its own case, and handed to `espeak_SetVoiceByFile` as
    /// `/proc/self/fd/N` (which lowercases its path too); any other name takes the search.
    @discardableResult
    func selectVoice(_ name: String) throws(EspeakError) -> VoiceSelection {
        // String operations only: the first use of Substring's generic conformances would be felt
        // in `speak TEXT`'s start.
        let plus = name.firstIndex(of: "+")
        let identifier = plus.map { String(name[..<$0]) } ?? name
        let variant = plus.map { String(name[$0...]) } ?? ""
        let climbs =
            identifier == ".." || identifier.hasPrefix("../") || identifier.hasSuffix("/..")
            || identifier.contains("/../")
        if identifier.contains("/"), !climbs, !dataPath.isEmpty {
            for directory in ["voices", "lang"] {
                let file = open("\(dataPath)/\(directory)/\(identifier)", O_RDONLY | O_CLOEXEC)
                guard file >= 0 else { continue }
                defer { close(file) }
                if api.SetVoiceByFile("/proc/self/fd/\(file)\(variant)") == EE_OK { return .file }
            }
        }
        try EspeakError.check(api.SetVoiceByName(name).rawValue, "espeak_SetVoiceByName(\"\(name)\")")
        return .search
    }

    private func speak(
        _ text: String, options: SpeechOptions, _ voice: EspeakVoiceSettings, userData: UnsafeMutableRawPointer
    ) throws(EspeakError) {
        // espeak-ng 1.51 drops the last character of a text that ends without a separator
        // (espeak-ng#1898, brailcom/speechd#978): a trailing space keeps it.
        let spoken = voice.transliterate(text)
        let padded = (options.ssml ? Self.markingEnd(spoken) : spoken) + " "
        var flags = UInt32(espeakCHARS_UTF8)
        if options.ssml { flags |= UInt32(espeakSSML) }
        let code = padded.withCString { bytes in
            api.Synth(bytes, strlen(bytes) + 1, 0, POS_CHARACTER, 0, flags, nil, userData)
        }
        try EspeakError.check(code.rawValue, "espeak_Synth")
    }
}

extension EspeakSynthesizer {
    /// The mark put at the end of SSML, so the sound can end where the text does.
    static let endMark = "speak-end-of-text"

    /// `markup` with ``endMark`` before its closing `</speak>`. espeak-ng ends SSML with a clause
    /// pause, which plain text does not get: cut there, a reply is as long as its plain text's,
    /// and a `<break>` asked for at the end (before the mark) is kept whole.
    static func markingEnd(_ markup: String) -> String {
        guard let close = markup.ranges(of: "</speak>").last else { return markup }
        return markup[..<close.lowerBound] + "<mark name=\"\(endMark)\"/>" + markup[close.lowerBound...]
    }
}

/// Receives espeak-ng's callbacks for one synthesis; reached through the event's `user_data`.
private final class ChunkSink {
    let onChunk: (UnsafeBufferPointer<Int16>) throws -> Void
    let onProgress: ((Double) -> Void)?
    let characters: Int
    let sampleRate: Int
    var error: (any Error)?
    /// Samples handed on so far.
    private var delivered = 0
    /// Where the text's end mark was heard, in samples: nothing after it is handed on.
    private var end: Int?

    init(
        onChunk: @escaping (UnsafeBufferPointer<Int16>) throws -> Void, onProgress: ((Double) -> Void)?,
        characters: Int, sampleRate: Int
    ) {
        self.onChunk = onChunk
        self.onProgress = onProgress
        self.characters = max(characters, 1)
        self.sampleRate = sampleRate
    }

    /// The end mark at `milliseconds` into the sound.
    func reachedEnd(atMilliseconds milliseconds: Int32) {
        end = end ?? Int(milliseconds) * sampleRate / 1000
    }

    /// Returns 1 to make espeak-ng abandon the text.
    func receive(_ samples: UnsafeMutablePointer<Int16>?, _ count: Int32, _ position: Int32) -> Int32 {
        guard error == nil else { return 1 }
        do {
            let count = min(Int(count), max(0, (end ?? .max) - delivered))
            if let samples, count > 0 {
                try onChunk(UnsafeBufferPointer(start: samples, count: count))
                delivered += count
            }
            if position > 0 { onProgress?(min(Double(position) / Double(characters), 1)) }
            return 0
        } catch {
            self.error = error
            return 1
        }
    }
}

/// espeak-ng's synthesis callback. It captures nothing: the sink arrives as the events' user data.
private func synthCallback(
    _ samples: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let events, let userData = events.pointee.user_data else { return 0 }
    let sink = Unmanaged<ChunkSink>.fromOpaque(userData).takeUnretainedValue()
    var position: Int32 = 0
    var event = events
    while event.pointee.type != espeakEVENT_LIST_TERMINATED {
        position = max(position, event.pointee.text_position)
        if event.pointee.type == espeakEVENT_MARK, let name = event.pointee.id.name,
            strcmp(name, EspeakSynthesizer.endMark) == 0
        {
            sink.reachedEnd(atMilliseconds: event.pointee.audio_position)
        }
        event += 1
    }
    return sink.receive(samples, count, position)
}
