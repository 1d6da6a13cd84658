internal import CWhisper
import Foundation
import SpeakKit

/// whisper.cpp and ggml log to stderr by default, a few dozen lines per model load. speak keeps them
/// quiet and remembers the last error line, which is the only place whisper.cpp says why a load or
/// a decode failed. `SPEAK_WHISPER_LOG=1` passes everything through to stderr instead.
enum WhisperLog {
    private struct Store {
        var lastError = ""
        var collecting = false
    }

    private static let store = Locked(Store())
    static let verbose = EnvironmentSettings.current.whisperLog

    /// Installs the callback; done once, before the first model is loaded.
    static let install: Void = whisper_log_set(whisperLogCallback, nil)

    static func record(level: Int, text: String) {
        if verbose { FileHandle.standardError.write(Data(text.utf8)) }
        store.withLock { store in
            if level == Int(GGML_LOG_LEVEL_ERROR.rawValue) {
                store.lastError = text
                store.collecting = true
            } else if level == Int(GGML_LOG_LEVEL_CONT.rawValue), store.collecting {
                store.lastError += text
            } else {
                store.collecting = false
            }
        }
    }

    /// The last error whisper.cpp logged, on one line, and forgets it.
    static func takeLastError() -> String? {
        store.withLock { store in
            defer { store.lastError = "" }
            let line = store.lastError.split(whereSeparator: \.isNewline).joined(separator: " ")
                .trimmingCharacters(in: .whitespaces)
            return line.isEmpty ? nil : line
        }
    }
}

/// Called by whisper.cpp on whichever thread logs; captures nothing.
private func whisperLogCallback(level: ggml_log_level, text: UnsafePointer<CChar>?, _: UnsafeMutableRawPointer?) {
    guard let text else { return }
    WhisperLog.record(level: Int(level.rawValue), text: String(cString: text))
}
