import FoundationEssentials
import Glibc

extension String {
    /// The string cut or padded with spaces to `width` characters, for columns.
    package func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end (HTTP header values, chunk sizes).
    package func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
