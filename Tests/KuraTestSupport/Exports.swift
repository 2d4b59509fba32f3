// SplitMix64, the suites' seeded generator, comes from the conformance
// library (whose random transcripts use it too).
@_exported import KuraEngineConformance
