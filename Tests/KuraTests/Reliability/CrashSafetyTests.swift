import Foundation
import Kura
import KuraTestSupport
import Testing

/// A writer process is killed with SIGKILL at random moments while it saves
/// batches (every fourth starting with a batch delete or update request);
/// after each kill the store must open, pass `check`, hold every batch the
/// writer acknowledged, and hold no part of a batch it didn't save (but its
/// batch request, whole, which commits on its own).
///
/// 200 trials by default; set KURA_CRASH_TRIALS (e.g. 1000) for more.
@Suite(.serialized) struct CrashSafetyTests {
    @Test func killedWritersNeverLoseAcknowledgedSavesOrLeaveHalfASave() throws {
        let trials = Int(ProcessInfo.processInfo.environment["KURA_CRASH_TRIALS"] ?? "") ?? 200
        let store = try TestStore(engine: .lmdb)
        let seed: UInt64 = 20_261_122
        var generator = SplitMix64(seed: seed)
        // The replayed state: the items after batch `replayed`.
        var replayed = -1
        var expected: [String: CrashWorkload.ItemState] = [:]
        var acknowledgedTotal = 0
        var killedMidway = 0
        var requestsCommittedAlone = 0

        for trial in 0..<trials {
            let child = try Helper.start(["crash-writer", store.path, String(seed)])
            // The kill comes once the writer acknowledged its k-th batch of
            // this run (k random, 0 to 3: progress, not a time a busy machine
            // stretches), and a random moment after it.
            let start = Helper.read(child, untilLineStartingWith: "start ")
            let batches = Int.random(in: 0...3, using: &generator)
            var received = Helper.read(child, untilLinesStartingWith: "ack ", count: batches, after: start)
            usleep(useconds_t(Int.random(in: 0...3_000, using: &generator)))
            child.kill(SIGKILL)
            received.append(child.standardOutput!.readDataToEndOfFile())
            let termination = try child.wait()
            #expect(termination == .signaled(SIGKILL) || termination == .exited(0),
                    "trial \(trial): the writer failed on its own: \(termination)")
            let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
            let acknowledged = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max()

            // The store must open and be consistent.
            let container = try PersistentContainer(path: store.path, model: CrashWorkload.model())
            let report = try container.store.check()
            #expect(report.isConsistent, "trial \(trial): \(report.problems)")
            #expect(!(try container.store.statistics().pages!.readers.contains { $0.processIdentifier == Int(child.processIdentifier) }),
                    "the killed writer's reader slot was not cleared")
            let (items, batch) = try CrashWorkload.read(container.newContext())
            container.close()

            // Every acknowledged batch is there (one more may have committed
            // before its acknowledgement was written).
            if let acknowledged {
                #expect(batch >= acknowledged, "trial \(trial): batch \(acknowledged) was acknowledged, the store has \(batch)")
                acknowledgedTotal += 1
            }
            if batch > (acknowledged ?? replayed) { killedMidway += 1 }
            // Exactly the batches up to the marker: nothing lost, nothing partial.
            #expect(batch >= replayed)
            CrashWorkload.replay(through: batch, seed: seed, replayed: &replayed, items: &expected)
            // A batch request commits before its batch's save: the store may
            // hold the next batch's request, whole, and nothing else of it.
            let requested = CrashWorkload.withNextRequest(after: batch, seed: seed, items: expected) ?? expected
            if items == requested && items != expected { requestsCommittedAlone += 1 }
            #expect(items == expected || items == requested, "trial \(trial): the store after batch \(batch) differs from the replay")
            if items != expected && items != requested { break }
        }
        #expect(replayed > trials / 4, "too few batches were saved (\(replayed)) to prove much")
        #expect(acknowledgedTotal > trials / 4)
        print("crash safety: \(trials) trials, \(replayed + 1) batches saved, \(killedMidway) kills between a commit and its acknowledgement, "
            + "\(requestsCommittedAlone) between a batch request and its batch's save")
    }
}
