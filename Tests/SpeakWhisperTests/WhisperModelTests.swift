import Foundation
import Testing
@testable import SpeakWhisper

@Suite struct WhisperModelTests {
    @Test func searchOrder() {
        let directories = WhisperModel.searchDirectories(
            modelsDirectory: "/opt/models", environment: ["SPEAK_MODELS": "/a:/b", "XDG_DATA_HOME": "/x", "HOME": "/h"],
            executablePath: "/usr/local/bin/speak")
        #expect(directories == [
            "/opt/models", "/a", "/b", "/x/speak/models", "/usr/local/share/speak/models", "/usr/share/speak/models",
        ])
    }
}
