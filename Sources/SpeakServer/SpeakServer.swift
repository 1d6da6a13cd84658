import SpeakKit
