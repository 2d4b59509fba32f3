import Foundation
import NewsDataset
import NewsEngines

// The instruction budget's workload: Kura's five hottest news rows at
// N = 20,000, once each, every row in a function of its own so that
// callgrind counts only inside it. Scripts/check-instruction-budget runs
// this under `valgrind --tool=callgrind --toggle-collect=kura_budget_…`,
// one dump per row. Nothing here is timed: callgrind's counts are the same
// from run to run on a busy machine, which a clock's are not.
//
// Each row's symbol is given by `@_silgen_name`, so that the script's
// pattern matches it and nothing else, and the function is left
// unoptimised (only its one call; what it calls is optimised as ever): the
// optimiser would otherwise call a specialised copy under another name, or
// end the function in a jump that callgrind doesn't see as a call, and
// either way nothing would be counted.

@_silgen_name("kura_budget_insert") @inline(never) @_optimize(none)
func budgetInsert(_ engine: KuraEngine, _ dataset: NewsDataset) throws -> Checksum {
    try engine.insert(dataset.news)
}

@_silgen_name("kura_budget_read_every_field") @inline(never) @_optimize(none)
func budgetReadEveryField(_ engine: KuraEngine) throws -> Checksum {
    try engine.fetchAllReadingEveryField()
}

@_silgen_name("kura_budget_top100_without_index") @inline(never) @_optimize(none)
func budgetTop100WithoutIndex(_ engine: KuraEngine) throws -> Checksum {
    try engine.fetchTop100(usingIndex: false)
}

@_silgen_name("kura_budget_typed_template_lookups") @inline(never) @_optimize(none)
func budgetTypedTemplateLookups(_ engine: KuraEngine, _ ids: [String]) throws -> Checksum {
    try engine.lookUp(ids)
}

@_silgen_name("kura_budget_update") @inline(never) @_optimize(none)
func budgetUpdate(_ engine: KuraEngine, _ range: ClosedRange<Int>) throws -> Checksum {
    try engine.update(range, iteration: 0)
}

let size = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kura-instructions-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

let dataset = NewsDataset(count: size)
let engine = try KuraEngine(directory: directory)
// What each row did, so a row that found nothing can't pass unseen.
print("insert", try budgetInsert(engine, dataset).count)
print("read-every-field", try budgetReadEveryField(engine).count)
print("top-100-without-index", try budgetTop100WithoutIndex(engine).count)
engine.lookupStyle = .typedTemplate
print("typed-template-lookups", try budgetTypedTemplateLookups(engine, dataset.lookupIDs).count)
print("update", try budgetUpdate(engine, dataset.sortOrderRange(from: 0.3, fraction: 0.1)).count)
