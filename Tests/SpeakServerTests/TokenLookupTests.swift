import Foundation
import SpeakKit
import Testing

@testable import SpeakServer

/// Tokens looked up at cache speed: remembered once they have matched, forgotten on reload.
@Suite("Token lookup")
struct TokenLookupTests {
    @Test("a matching token is remembered; wrong ones never are, however many")
    func remembersOnlyMatches() throws {
        let file = try AuthTests.tokensFile(TokenStore.hashLine(for: "good", name: "g") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        for attempt in 0..<2000 { #expect(store.authenticate("Bearer guess-\(attempt)") == nil) }
        #expect(store.rememberedCount == 0)
        #expect(store.authenticate("Bearer good") == "g")
        #expect(store.authenticate("Bearer good") == "g")
        #expect(store.rememberedCount == 1)
        #expect(store.authenticate("Bearer goo") == nil && store.authenticate("Bearer good2") == nil)
    }

    @Test("a remembered token stops working when the reload removes it")
    func forgottenOnReload() throws {
        let file = try AuthTests.tokensFile(TokenStore.hashLine(for: "old", name: "old") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        #expect(store.authenticate("Bearer old") == "old")
        #expect(store.rememberedCount == 1)
        try (TokenStore.hashLine(for: "new", name: "new") + "\n").write(to: file, atomically: true, encoding: .utf8)
        try store.reload()
        #expect(store.rememberedCount == 0)
        #expect(store.authenticate("Bearer old") == nil)
        #expect(store.authenticate("Bearer new") == "new")
    }

    @Test("the map is bounded")
    func bounded() throws {
        let lines = (0..<(TokenStore.rememberedLimit + 10)).map { TokenStore.hashLine(for: "t\($0)", name: "n\($0)") }
        let file = try AuthTests.tokensFile(lines.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try TokenStore(file: file)
        for index in 0..<(TokenStore.rememberedLimit + 10) {
            #expect(store.authenticate("Bearer t\(index)") == "n\(index)")
        }
        #expect(store.rememberedCount <= TokenStore.rememberedLimit)
    }

    @Test(
        "header forms",
        arguments: [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("Bearer  abc ", "abc"), (" Bearer abc", "abc"),
            ("Bearer a b", nil), ("Bearer ", nil), ("Bearer", nil), ("Basic abc", nil), ("Bearer\tabc", nil),
        ] as [(String, String?)])
    func headerForms(header: String, token: String?) {
        #expect(TokenStore.bearerToken(header).map(String.init) == token)
    }
}
