public protocol Transcriber: Sendable { func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) throws -> Transcript }
public struct TranscriptionOptions: Sendable { public var language: String?; public var prompt: String?; public var expectedPhrases: [String]?
    public init(language: String? = nil, prompt: String? = nil, expectedPhrases: [String]? = nil) {
        self.language = language; self.prompt = prompt; self.expectedPhrases = expectedPhrases
    }
}
public struct Transcript: Sendable, Equatable { public var text: String; public var duration: Double; public var segments: [Segment]
    public struct Segment: Sendable, Equatable { public var start: Double; public var end: Double; public var text: String; public init(start: Double, end: Double, text: String) { self.start = start; self.end = end; self.text = text } }
    public init(text: String, duration: Double, segments: [Segment] = []) { self.text = text; self.duration = duration; self.segments = segments }
}
