import Foundation
import SpeakKit
import SpeakTestSupport
import Testing

@testable import SpeakWhisper

/// Live captions with the real recogniser: Whisper run again over each turn as speech arrives.
@Suite("whisper live transcription", .serialized)
struct WhisperLiveTests {
    @Test("each turn's final text is what Whisper hears offline, no word lost, and final words never change")
    func turns() throws {
        let sentences = [
            "The deployment finished without errors.", "We will meet at the train station at noon.",
            "Call my sister when you arrive at the airport.",
            "Please turn on the kitchen lights, and then the lights in the hall.",
        ]
        let whisper = try Models.tiny.get()
        let clips = try sentences.map { try Speech.clip($0, pause: 0.6) }
        let clock = AudioClock()
        let live = LiveTranscription(
            transcriber: whisper, format: .transcription, detector: LevelDetector(), now: clock.now)
        let events = try TestAudio.feed(Speech.joined(clips).samples, to: live, clock: clock).map(\.event)
        var completed: [String] = []
        var finals: [String] = []
        var turnFinals: [String] = []
        for event in events {
            switch event {
            case .final(let text): turnFinals.append(text)
            case .completed(let text, _, _):
                completed.append(text)
                finals.append(turnFinals.joined(separator: " "))
                turnFinals = []
            default: break
            }
        }
        #expect(completed.count == sentences.count, "\(completed)")
        #expect(finals == completed, "final text is only ever appended to")
        // Offline, tiny.en hears each sentence exactly (WhisperTranscriberTests.clearSentence). Live,
        // no word is lost or repeated; one may be heard differently where the decodes that agreed on it
        // heard little of the turn (the first is heard "A deployment").
        for (heard, sentence) in zip(completed, sentences) {
            let (got, want) = (Speech.words(heard), Speech.words(sentence))
            #expect(got.count == want.count, "\(heard)")
            #expect(zip(got, want).filter { $0 != $1 }.count <= 1, "\(heard)")
        }
        #expect(events.contains { if case .partial(let text) = $0 { !text.isEmpty } else { false } })
    }
}
