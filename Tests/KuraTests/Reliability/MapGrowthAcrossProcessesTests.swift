import Foundation
import Kura
import KuraTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Writers in two processes grow a store's map from 64 KiB while readers in
/// other processes (read-only and read-write library containers, a long
/// `kura inspect` session) and in this process only read: no read or write
/// may fail, and no read may see part of a save.
///
/// `KURA_GROWTH_MB` sets roughly how much the writers store (default 48);
/// the closing note of the defects issue reports a run to several GiB.
@Suite(.serialized) struct MapGrowthAcrossProcessesTests {
    @Test func readersInOtherProcessesNeverFailWhileWritersGrowTheMap() throws {
        let megabytes = Int(ProcessInfo.processInfo.environment["KURA_GROWTH_MB"] ?? "") ?? 48
        let payload = 1500
        let perSave = 200
        let savesPerWriter = max(1, megabytes * 1_000_000 / (2 * perSave * payload))
        let total = 2 * savesPerWriter * perSave

        let store = try TestStore(engine: .lmdb)
        let container = try store.open(GrowthWorkload.model(), options: GrowthWorkload.options())
        let initialMap = try container.store.statistics().pages!.mapSize
        #expect(initialMap == 64 << 10)

        let writers = try (0..<2).map { writer in
            try Helper.start(["growth-writer", store.path, "\(writer)", "\(savesPerWriter)", "\(perSave)", "\(payload)"])
        }
        let readers = try ["ro", "rw"].map { mode in
            try Helper.start(["growth-reader", store.path, mode, "\(perSave)", "\(total)", "300"])
        }
        let kura = try ChildProcess(
            Helper.buildDirectory.appendingPathComponent("kura").path, ["inspect", store.path, "--keep-going"],
            standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)

        // This process reads too, never writing, until the writers are done.
        var reads = 0
        var failures = 0
        var firstFailure = ""
        var torn = 0
        var commandsSent = 0
        var lastCommand = Date.distantPast
        // One-shot `kura count`s open the store afresh while it grows.
        var opens: [ChildProcess] = []
        while writers.contains(where: \.isRunning) {
            do {
                torn += try GrowthWorkload.read(container, perSave: perSave).tornBatches
            } catch {
                failures += 1
                if firstFailure.isEmpty { firstFailure = "\(error)" }
            }
            reads += 1
            if Date().timeIntervalSince(lastCommand) >= 0.05 {
                kura.standardInput!.write(Data("count Blob\n".utf8))
                commandsSent += 1
                lastCommand = Date()
                if opens.count < 40 {
                    opens.append(try ChildProcess(
                        Helper.buildDirectory.appendingPathComponent("kura").path, ["count", store.path, "Blob"],
                        standardOutput: .pipe, standardError: .pipe))
                }
            }
        }
        for writer in writers {
            let output = String(decoding: writer.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            #expect(try writer.wait() == .exited(0), "writer: \(output)")
            #expect(output.hasPrefix("wrote \(savesPerWriter * perSave)"), "writer: \(output)")
        }
        kura.standardInput!.write(Data("count Blob\n".utf8))
        commandsSent += 1
        try kura.standardInput!.close()
        let kuraOutput = String(decoding: kura.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        let kuraErrors = String(decoding: kura.standardError!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try kura.wait() == .exited(0), "kura: \(kuraErrors)")
        #expect(kuraErrors.isEmpty, "kura inspect failed commands: \(kuraErrors.prefix(500))")
        let counts = kuraOutput.split(separator: "\n").compactMap { Int($0) }
        #expect(counts.count == commandsSent, "kura answered \(counts.count) of \(commandsSent) commands")
        #expect(counts.allSatisfy { $0 % perSave == 0 }, "kura counted part of a save")
        #expect(counts.last == total)

        for open in opens {
            let output = String(decoding: open.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: open.standardError!.readDataToEndOfFile(), as: UTF8.self)
            #expect(try open.wait() == .exited(0), "kura count opened during growth: \(errors)")
            #expect(Int(output.trimmingCharacters(in: .newlines)).map { $0 % perSave == 0 } == true, "\(output)")
        }
        for reader in readers {
            let output = String(decoding: reader.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            #expect(try reader.wait() == .exited(0), "reader: \(output)")
            #expect(output.contains("failures 0 torn 0 objects \(total)"), "reader: \(output)")
        }
        #expect(failures == 0, "\(failures) of \(reads) reads in this process failed; the first: \(firstFailure)")
        #expect(torn == 0)
        let finalMap = try container.store.statistics().pages!.mapSize
        #expect(finalMap >= total * payload)
        print("map growth: \(initialMap) → \(finalMap) bytes, \(total) objects, \(reads) reads here, \(commandsSent) kura commands, \(opens.count) opens")
    }
}
