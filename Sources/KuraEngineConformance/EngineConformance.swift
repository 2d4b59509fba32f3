import KuraCore

/// Checks a storage engine against the seam's contract, for an engine of
/// another product to run in its own tests (with any test framework):
///
/// ```swift
/// @Test func myEngineConforms() throws {
///     let problems = try EngineConformance.problems { try MyEngine(url: freshDatabase()) }
///     #expect(problems.isEmpty, "\(problems)")
/// }
/// ```
///
/// It runs random mixes of every operation of `StorageTransaction` (puts
/// of each kind, deletes, cursor edits, gets, counts, range walks both
/// ways) on the engine and on Kura's in-memory engine, the reference, and
/// compares every answer; an engine that adopts `RequestingStorageTransaction`
/// also walks with every read-ahead hint and reads joined, and must find
/// what the key-value reads find. Then it checks what the answers can't
/// show: a read keeps its snapshot while a write commits, a failed write
/// leaves nothing, a failed nested transaction is undone alone, commit
/// numbers grow, a closed engine says so; an empty engine is empty, spaces
/// emptied (`removeAll`) keep their place and dropped ones go, a write's id
/// is its commit's, a commit watch hears a commit and is silent once
/// stopped; and for the refinement: a count for plans, reads ahead that
/// change no answer (also after the write's own changes), a rewrite whose
/// expected values are stale still commits what the stored ones give, a
/// ranked read holds the top K with its ties and every record without a
/// rank, and puts after `reserveCapacity` are stored. Kura's own suite runs
/// it on the LMDB, in-memory and PostgreSQL engines, and on engines that
/// break each promise, which it names.
public enum EngineConformance {
    /// What the engine `makeEngine` opens does differently from the
    /// contract, one line each; empty when it conforms.
    ///
    /// - Parameters:
    ///   - seeds: One random transcript per seed, each on a new engine.
    ///   - makeEngine: Opens a new, empty engine (called once per seed and
    ///     once more for the other checks); the checks close it.
    public static func problems(seeds: [UInt64] = [1, 2, 3, 4], makeEngine: () throws -> any StorageEngine) throws -> [String] {
        var problems: [String] = []
        for seed in seeds {
            let reference = StoreDescription.inMemoryEngine(name: "reference")
            defer { reference.close() }
            let engine = try makeEngine()
            defer { engine.close() }
            let expected = try OperationTranscript.record(on: reference, seed: seed)
            let found = try OperationTranscript.record(on: engine, seed: seed)
            if let line = found.indices.first(where: { $0 < expected.count && found[$0] != expected[$0] }) {
                problems.append("seed \(seed), line \(line): the engine says \(found[line]), the reference \(expected[line])")
            } else if found.count != expected.count {
                problems.append("seed \(seed): \(found.count) answers, the reference gave \(expected.count)")
            }
        }
        for checks in [TransactionChecks.problems, SpaceChecks.problems, RefinementChecks.problems] {
            let engine = try makeEngine()
            defer { engine.close() }
            problems += try checks(engine)
        }
        return problems
    }
}

/// Why a check could not go on (a space that should exist doesn't).
struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
}
