import FuzzDriver

runFuzzer { fuzzWebSocket($0, $1) }
