import SpeakCLI
import SpeakMedia

// `speak -o reply.m4a` (AAC), `.aiff`, `.caf`, `.ogg`, `.opus`, `.flac`…: FFmpeg writes what
// SpeakKit does not, and only here, so the light `speak` links none of it.
extension MediaFileWriter: AudioSink {}

extension MediaFiles {
    static let ffmpeg = MediaFiles(
        missing: { MediaFileWriter.missing($0.recipe) },
        open: { format, file, inputRate in try MediaFileWriter(file: file, recipe: format.recipe, inputRate: inputRate)
        }
    )
}

/// FFmpeg's names for what say's file types and data formats name: the command line knows the
/// formats, this file the muxers and encoders that make them.
extension OutputFormat {
    var recipe: MediaFileWriter.Recipe {
        MediaFileWriter.Recipe(
            muxer: Self.muxers[fileType.identifier] ?? fileType.identifier, encoders: encoders,
            sampleRate: sampleRate, bitRate: bitRate)
    }

    /// By file type (say's four-character names).
    static let muxers = [
        "mp3": "mp3", "WAVE": "wav", "AIFF": "aiff", "caff": "caf", "m4af": "ipod", "mp4f": "mp4", "adts": "adts",
        "NeXT": "au", "OggS": "ogg", "Opus": "opus", "flac": "flac",
    ]

    /// The encoders that make the data, the preferred first.
    var encoders: [String] {
        if let layout {
            let letter = layout.kind == .float ? "f" : layout.kind == .unsigned ? "u" : "s"
            return ["pcm_\(letter)\(layout.bits)" + (layout.bigEndian.map { $0 ? "be" : "le" } ?? "")]
        }
        switch codec {
        case .lpcm, .mp3: return []
        case .ulaw: return ["pcm_mulaw"]
        case .alaw: return ["pcm_alaw"]
        case .aac: return ["aac"]
        case .alac: return ["alac"]
        case .flac: return ["flac"]
        // FFmpeg's own Opus and Vorbis encoders are experimental: only the libraries'.
        case .opus: return ["libopus"]
        case .vorbis: return ["libvorbis"]
        }
    }
}
