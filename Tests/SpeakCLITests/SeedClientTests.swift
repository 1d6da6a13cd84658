import Foundation
import SpeakKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The seed's mobile client (`VoiceAPI.swift` in /work/shared/seeds, 001_…), as it is, against a
/// real `speak serve`: its requests are made by its own code on URLSession, so they are byte for
/// byte what it sends (a UUID boundary, `language` first, `note.m4a` as `audio/mp4`; then JSON
/// `{"text","voice":"nadia"}`), and it checks what it checks.
@Suite("the seed's VoiceAPI client", .serialized)
final class SeedClientTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Samples"
    ).standardizedFileURL
    let server: RunningServer

    init() throws { server = try RunningServer() }

    /// The seed's VoiceAPI, unchanged but for `waitsForConnectivity`, which Linux's URLSession lacks.
    struct VoiceAPI {
        let baseURL: URL
        let token: String  // your user's token, not the Namu key
        private var session: URLSession {
            let config = URLSessionConfiguration.default
            config.timeoutIntervalForRequest = 300  // a model waking up can take a minute
            return URLSession(configuration: config)
        }

        func transcribe(_ file: URL, language: String = "ha") async throws -> String {
            let boundary = UUID().uuidString
            var body = Data()
            func field(_ name: String, _ value: String) {
                body.append(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".data(
                        using: .utf8)!)
            }
            field("language", language)
            body.append(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.m4a\"\r\n"
                    + "Content-Type: audio/mp4\r\n\r\n").data(using: .utf8)!)
            body.append(try Data(contentsOf: file))
            body.append("\r\n--\(boundary)--\r\n".data(using: .utf8)!)
            var request = URLRequest(url: baseURL.appendingPathComponent("api/transcribe"))
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
            let (data, response) = try await session.upload(for: request, from: body)
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            guard (response as? HTTPURLResponse)?.statusCode == 200, let text = json["text"] as? String else {
                throw URLError(.badServerResponse)
            }
            return text
        }

        func speak(_ text: String) async throws -> Data {
            var request = URLRequest(url: baseURL.appendingPathComponent("api/speak"))
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: ["text": text, "voice": "nadia"])
            let (data, response) = try await session.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
            return data  // MP3
        }
    }

    /// AAC's object type, sample rate and channels from an M4A's `esds` box: its ES descriptor
    /// (tag 3) holds the decoder config (tag 4, 13 bytes), which holds the AudioSpecificConfig (tag 5).
    static func audioSpecificConfig(_ file: Data) -> (Int, Int, Int)? {
        guard let esds = file.range(of: Data("esds".utf8)) else { return nil }
        var index = esds.upperBound + 4  // version and flags
        func descriptor(_ tag: UInt8) -> Bool {
            guard index < file.count, file[index] == tag else { return false }
            index += 1
            while index < file.count, file[index] & 0x80 != 0 { index += 1 }  // the length's continuation bytes
            index += 1
            return true
        }
        guard descriptor(3) else { return nil }
        index += 3  // ES_ID, flags
        guard descriptor(4) else { return nil }
        index += 13
        guard descriptor(5), index + 1 < file.count else { return nil }
        let bits = Int(file[index]) << 8 | Int(file[index + 1])
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        let rateIndex = bits >> 7 & 0xF
        return (bits >> 11, rateIndex < rates.count ? rates[rateIndex] : 0, bits >> 3 & 0xF)
    }

    var api: VoiceAPI { VoiceAPI(baseURL: URL(string: server.url)!, token: server.token) }

    @Test(
        """
        transcribe: the recorder's note.m4a (AAC, 16 kHz mono, 32 kbps), in Hausa as the seed defaults to, \
        and in English
        """
    )
    func transcribe() async throws {
        let note = Self.samples.appendingPathComponent("yes.m4a")
        // The seed's recorder settings, read back from the file's AudioSpecificConfig.
        let (codec, rate, channels) = try #require(Self.audioSpecificConfig(try Data(contentsOf: note)))
        #expect(codec == 2 && rate == 16000 && channels == 1, "object type \(codec), \(rate) Hz, \(channels) channels")
        let hausa = try await api.transcribe(note)
        #expect(!hausa.isEmpty)
        let english = try await api.transcribe(note, language: "en")
        #expect(english.lowercased().contains("please do"), "\(english)")
    }

    @Test("speak: the seed's own line in nadia's voice is an MP3 that plays to its end")
    func speak() async throws {
        let mp3 = try await api.speak("Na gode! Mun karɓi saƙonku.")
        // An MPEG audio frame header (or an ID3 tag) first, as AVAudioPlayer's sniffer wants.
        #expect(
            mp3.prefix(3) == Data("ID3".utf8) || (mp3[0] == 0xFF && mp3[1] & 0xE0 == 0xE0),
            "\(mp3.prefix(4).map { $0 })")
        let pcm = try PCMBuffer(audio: mp3)
        #expect(pcm.duration > 1.2 && pcm.duration < 4, "\(pcm.duration) s")
    }
}
