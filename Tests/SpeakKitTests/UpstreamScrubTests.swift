import Foundation
import Testing

@testable import SpeakUpstream

/// Upstream error bodies never reach our clients or logs, nor does the key in any form (issue 11, item 12).
@Suite("Upstream errors in our words")
struct UpstreamScrubTests {
    static let key = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz568e7d"

    @Test(
        "the key is cut out in any case, and masked forms with it",
        arguments: [
            "Incorrect API key provided: sk-…****8e7d. You can find your API key at https://x",
            "Incorrect API key provided: sk-proj-Ab12********************8e7d.",
            "invalid key \(key.lowercased()) given",
            "invalid key \(key.uppercased()) given",
            "Bearer \(key)",
            "key gsk_ab...7d rejected",
        ])
    func scrubbed(message: String) {
        let text = UpstreamHTTP.redacted(message, key: Self.key)
        #expect(!text.lowercased().contains(Self.key.lowercased()), "\(text)")
        #expect(!text.contains("8e7d") && !text.contains("7d rejected") || text.contains("[key]"), "\(text)")
        #expect(!text.contains("****"), "\(text)")
        #expect(text.contains("[key]"), "\(text)")
    }

    @Test("ordinary words are left alone")
    func ordinaryText() {
        let text = "the upstream failed: Service Unavailable (retry later...)"
        #expect(UpstreamHTTP.redacted(text, key: Self.key) == text)
    }

    @Test("an upstream's error body is never part of the message", arguments: [400, 401, 403, 404, 429, 500, 503])
    func bodyNotPassedOn(status: Int) {
        let body = Data(#"{"error":{"message":"Incorrect API key provided: sk-…****8e7d","internal":"db01"}}"#.utf8)
        let message = UpstreamHTTP.summary(of: status, body: body, key: Self.key)
        #expect(!message.contains("8e7d") && !message.contains("db01") && !message.contains("Incorrect"), "\(message)")
        #expect(message.hasPrefix("the upstream"))
    }
}
