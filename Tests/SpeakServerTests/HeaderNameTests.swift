import Testing

@testable import SpeakServer

/// Header names are matched in any case by an ASCII-only lowercasing (the fast path of every request).
@Suite("Header names")
struct HeaderNameTests {
    @Test("A–Z are lowercased; digits, punctuation and non-ASCII bytes stay as they are")
    func asciiOnly() {
        #expect(asciiLowercased("Content-Length") == "content-length")
        #expect(asciiLowercased("X-AZ@[`{09") == "x-az@[`{09")
        #expect(asciiLowercased("already-lower") == "already-lower")
        #expect(asciiLowercased("ÄÖ-Ü") == "ÄÖ-Ü")
        #expect(asciiLowercased("") == "")
    }

    @Test("a request's header is found whatever case the caller names it in")
    func lookupInAnyCase() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["authorization": "Bearer t"])
        #expect(request.header("Authorization") == "Bearer t")
        #expect(request.header("AUTHORIZATION") == "Bearer t")
        #expect(request.header("authorization") == "Bearer t")
        #expect(request.header("Authorisation") == nil)
    }
}
