import Foundation
import Kura

extension InspectSession {
    func showStatistics() throws {
        let statistics = try container.store.statistics()
        if mode == .json {
            print(JSONOutput.line([
                "path": statistics.path, "fileSize": statistics.fileSize, "mapSize": statistics.mapSize,
                "usedBytes": statistics.usedBytes, "pageSize": statistics.pageSize,
                "lastTransactionID": statistics.lastTransactionID, "maxReaders": statistics.maxReaders,
                "readersUsed": statistics.readersUsed, "readers": statistics.readers,
                "databases": statistics.databases.map { database in
                    ["kind": database.kind, "entity": database.entity ?? JSONOutput.value(nil),
                     "index": database.index ?? JSONOutput.value(nil), "depth": database.depth,
                     "branchPages": database.branchPages, "leafPages": database.leafPages,
                     "overflowPages": database.overflowPages, "entries": database.entries] as [String: Any]
                },
            ] as [String: Any]))
            return
        }
        let used = Double(statistics.usedBytes) / Double(max(statistics.mapSize, 1)) * 100
        print("file         \(statistics.path) (\(Self.bytes(statistics.fileSize)))")
        print("map          \(Self.bytes(statistics.mapSize)), \(String(format: "%.1f", used))% used (\(Self.bytes(statistics.usedBytes)) in pages of \(statistics.pageSize) bytes)")
        print("transaction  \(statistics.lastTransactionID) (last committed)")
        print("readers      \(statistics.readers.count) active, \(statistics.readersUsed) of \(statistics.maxReaders) slots used")
        for reader in statistics.readers { print("             \(reader)") }
        let rows = statistics.databases.map { database in
            [[database.entity, database.kind == "index" ? "index \(database.index ?? "")" : database.kind].compactMap { $0 }.joined(separator: " "),
             String(database.depth), String(database.branchPages), String(database.leafPages),
             String(database.overflowPages), String(database.entries)]
        }
        print(table.format(headers: ["database", "depth", "branch", "leaf", "overflow", "entries"], rows: rows,
                           rightAligned: [1, 2, 3, 4, 5]))
    }

    static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    /// Checks index ⇄ record consistency and unique indexes; reports, never
    /// repairs. An inconsistent store is an error (a non-zero exit status).
    func check() throws {
        let report = try container.store.check()
        if mode == .json {
            print(JSONOutput.line([
                "consistent": report.isConsistent, "problemCount": report.problemCount, "problems": report.problems,
                "entities": report.entities.map {
                    ["entity": $0.entity, "records": $0.records, "indexEntries": $0.indexEntries,
                     "relationshipEntries": $0.relationshipEntries, "danglingReferences": $0.danglingReferences] as [String: Any]
                },
            ] as [String: Any]))
        } else {
            for entity in report.entities {
                let indexes = entity.indexEntries.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                let relationships = entity.relationshipEntries.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                print("\(entity.entity): \(entity.records) records"
                    + (indexes.isEmpty ? "" : "; index entries: " + indexes.joined(separator: ", "))
                    + (relationships.isEmpty ? "" : "; relationship entries: " + relationships.joined(separator: ", "))
                    + (entity.danglingReferences > 0 ? "; \(entity.danglingReferences) references left by no-action delete rules" : ""))
            }
            for problem in report.problems { print("problem: \(problem)") }
            if report.problemCount > report.problems.count {
                print("… and \(report.problemCount - report.problems.count) more problems")
            }
            if report.isConsistent {
                print("ok: pages, records, indexes and relationships all agree")
            }
        }
        if !report.isConsistent {
            throw InspectError("the store has \(report.problemCount) consistency \(report.problemCount == 1 ? "problem" : "problems")")
        }
    }
}
