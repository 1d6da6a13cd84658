import FuzzDriver

runFuzzer { fuzzVoice($0, $1) }
