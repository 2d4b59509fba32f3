import Foundation
import Kura

extension InspectSession {
    func showStatistics() throws {
        let statistics = try container.store.statistics()
        let pageSize = statistics.pageSize
        if mode.isJSON {
            emitJSON([
                "path": statistics.path, "fileSize": statistics.fileSize, "mapSize": statistics.mapSize,
                "usedBytes": statistics.usedBytes, "pageSize": pageSize, "compactedBytes": statistics.compactedBytes,
                "reclaimableBytes": statistics.reclaimableBytes,
                "lastTransactionID": statistics.lastTransactionID, "maxReaders": statistics.maxReaders,
                "readersUsed": statistics.readersUsed,
                "readers": statistics.readers.map { reader in
                    ["pid": reader.processIdentifier, "thread": reader.thread, "transaction": reader.transactionID as Any] as [String: Any]
                },
                "entities": entityUse(statistics).map { ["entity": $0.entity, "objects": $0.objects, "bytes": $0.bytes] as [String: Any] },
                "databases": statistics.databases.map { database in
                    ["kind": database.kind, "entity": database.entity as Any, "index": database.index as Any, "depth": database.depth,
                     "branchPages": database.branchPages, "leafPages": database.leafPages,
                     "overflowPages": database.overflowPages, "entries": database.entries] as [String: Any]
                },
            ] as [String: Any])
            return
        }
        let used = Double(statistics.usedBytes) / Double(max(statistics.mapSize, 1)) * 100
        print("file         \(statistics.path), \(Self.bytes(statistics.fileSize))")
        print("map          \(Self.bytes(statistics.mapSize)), \(String(format: "%.1f", used))% used "
            + "(\(Self.bytes(statistics.usedBytes)) in \(pageSize)-byte pages)")
        print("compaction   would give back \(Self.bytes(statistics.reclaimableBytes)) "
            + "(kura backup STORE COPY --compact)")
        print("transaction  \(statistics.lastTransactionID), the last committed")
        print("readers      \(statistics.readers.count) of \(statistics.maxReaders) slots in use")
        if !statistics.readers.isEmpty {
            emit(headers: ["pid", "thread", "snapshot"], text: statistics.readers.map { reader in
                [String(reader.processIdentifier), reader.thread, reader.transactionID.map { "transaction \($0)" } ?? "none (idle)"]
            }, rightAligned: [0])
        }
        print("")
        emit(headers: ["entity", "objects", "bytes"], text: entityUse(statistics).map { use in
            [use.entity, String(use.objects), Self.bytes(use.bytes)]
        }, rightAligned: [1, 2])
        print("")
        let rows = statistics.databases.map { database in
            [[database.entity, database.kind == "records" ? "records" : database.index ?? database.kind]
                .compactMap { $0 }.joined(separator: " "),
             String(database.depth), String(database.totalPages), Self.bytes(database.totalPages * pageSize), String(database.entries)]
        }
        emit(headers: ["database", "depth", "pages", "bytes", "entries"], text: rows, rightAligned: [1, 2, 3, 4])
    }

    /// Objects and bytes (records, indexes, relationships) of each entity.
    private func entityUse(_ statistics: StoreStatistics) -> [(entity: String, objects: Int, bytes: Int)] {
        model.entities.map { entity in
            let databases = statistics.databases.filter { $0.entity == entity.name }
            let objects = databases.first { $0.kind == "records" }?.entries ?? 0
            return (entity.name, objects, databases.reduce(0) { $0 + $1.totalPages } * statistics.pageSize)
        }
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
        if mode.isJSON {
            emitJSON([
                "consistent": report.isConsistent, "problemCount": report.problemCount, "problems": report.problems,
                "entities": report.entities.map {
                    ["entity": $0.entity, "records": $0.records, "indexEntries": $0.indexEntries,
                     "relationshipEntries": $0.relationshipEntries, "danglingReferences": $0.danglingReferences] as [String: Any]
                },
            ] as [String: Any])
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
