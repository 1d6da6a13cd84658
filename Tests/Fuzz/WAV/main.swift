import FuzzDriver

runFuzzer { fuzzWAV($0, $1) }
