import FuzzDriver

runFuzzer { fuzzConfiguration($0, $1) }
