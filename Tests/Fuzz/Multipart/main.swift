import FuzzDriver

runFuzzer { fuzzMultipart($0, $1) }
