import FoundationEssentials
import Glibc
import SpeakKit

/// `[=========>          ]  45%` on standard error, redrawn in place as synthesis advances.
package final class ProgressBar {
    private let width = 30
    private var shown = -1

    package func show(_ fraction: Double) {
        let percent = Int(fraction * 100)
        guard percent != shown else { return }
        shown = percent
        let filled = width * percent / 100
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        let number = String(percent)
        writeToStandardError("\r[\(bar)] " + String(repeating: " ", count: max(0, 3 - number.count)) + number + "%")
    }

    package func end() {
        if shown >= 0 { writeToStandardError("\n") }
    }
}
