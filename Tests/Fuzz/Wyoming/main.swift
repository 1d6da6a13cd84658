import FuzzDriver

runFuzzer { fuzzWyoming($0, $1) }
