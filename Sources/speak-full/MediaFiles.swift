import SpeakCLI
import SpeakMedia

// `speak -o reply.m4a` (AAC), `.aiff`, `.caf`, `.ogg`, `.opus`, `.flac`…: FFmpeg writes what
// SpeakKit does not, and only here, so the light `speak` links none of it.
extension MediaFileWriter: AudioSink {}

extension MediaFiles {
    static let ffmpeg = MediaFiles(
        canWrite: { MediaFileWriter.canWrite($0.recipe) },
        open: { format, file, inputRate in try MediaFileWriter(file: file, recipe: format.recipe, inputRate: inputRate)
        }
    )
}

extension OutputFormat {
    var recipe: MediaFileWriter.Recipe {
        MediaFileWriter.Recipe(muxer: muxer, encoders: encoders, sampleRate: sampleRate, bitRate: bitRate)
    }
}
