import Foundation

/// The page `speak serve` answers at `/`: type a sentence and hear it, say something and read it.
/// One self-contained HTML file, `index.html` beside this one (styles and script inline, nothing
/// fetched from elsewhere), compiled in by SwiftPM (`.embedInCode` in Package.swift) so an installed
/// binary needs no data directory. The page itself is open; the calls it makes carry the token the
/// user types, kept in the browser's localStorage.
enum WebPage {
    static let response = HTTPResponse(
        headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            // Only this server: no outside scripts, styles, fonts or images, and no framing. The
            // live captions' AudioWorklet is a script the page makes, loaded from a blob: URL.
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; connect-src 'self'; "
                    + "media-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
                    + "form-action 'none'"
            ),
        ],
        body: .data(Data(PackageResources.index_html)))
}
