import FoundationEssentials
import Glibc
import SpeakKit

/// `[=========>          ]  45%` on standard error: redrawn in place on a terminal, a line every
/// 10 % in a log (a file or a pipe gets no screenful of carriage returns).
package final class ProgressBar {
    private let width = 30
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var shown = -1

    package func show(_ fraction: Double) {
        let percent = min(100, max(0, Int(fraction * 100)))
        // Never backwards: espeak-ng's text position can step back a little.
        guard percent > shown, isTerminal || shown < 0 || percent / 10 > shown / 10 else { return }
        shown = percent
        let filled = width * percent / 100
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        let number = String(percent)
        let line = "[\(bar)] " + String(repeating: " ", count: max(0, 3 - number.count)) + number + "%"
        writeToStandardError(isTerminal ? "\r" + line : line + "\n")
    }

    package func end() {
        if shown >= 0, isTerminal { writeToStandardError("\n") }
    }
}
