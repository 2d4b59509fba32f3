import Foundation
import Kura

extension InspectSession {
    func showStatistics() throws {
        let statistics = try container.store.statistics()
        let pages = statistics.pages
        if mode.isJSON {
            var object: [String: Any] = [
                "path": statistics.path, "fileSize": statistics.fileSize, "usedBytes": statistics.usedBytes,
                "lastTransactionID": statistics.lastTransactionID as Any,
                "entities": entityUse(statistics).map { ["entity": $0.entity, "objects": $0.objects, "bytes": $0.bytes] as [String: Any] },
                "databases": statistics.spaces.map { space in
                    var fields: [String: Any] = ["kind": space.kind, "entity": space.entity as Any, "index": space.part as Any,
                                                 "entries": space.entries, "bytes": space.bytes]
                    if let tree = space.tree {
                        fields.merge(["depth": tree.depth, "branchPages": tree.branchPages, "leafPages": tree.leafPages,
                                      "overflowPages": tree.overflowPages]) { $1 }
                    }
                    return fields
                },
            ]
            if let pages {
                object.merge([
                    "mapSize": pages.mapSize, "pageSize": pages.pageSize, "compactedBytes": pages.compactedBytes,
                    "reclaimableBytes": statistics.reclaimableBytes, "maxReaders": pages.maxReaders, "readersUsed": pages.readersUsed,
                    "readers": pages.readers.map { reader in
                        ["pid": reader.processIdentifier, "thread": reader.thread, "transaction": reader.transactionID as Any] as [String: Any]
                    },
                ]) { $1 }
            }
            emitJSON(object)
            return
        }
        print("file         \(statistics.path), \(Self.bytes(statistics.fileSize))")
        if let pages {
            let used = Double(statistics.usedBytes) / Double(max(pages.mapSize, 1)) * 100
            print("map          \(Self.bytes(pages.mapSize)), \(String(format: "%.1f", used))% used "
                + "(\(Self.bytes(statistics.usedBytes)) in \(pages.pageSize)-byte pages)")
            print("compaction   would give back \(Self.bytes(statistics.reclaimableBytes)) "
                + "(kura backup STORE COPY --compact)")
        } else {
            print("used         \(Self.bytes(statistics.usedBytes)) of keys and values")
        }
        if let transaction = statistics.lastTransactionID {
            print("transaction  \(transaction), the last committed")
        }
        if let pages {
            print("readers      \(pages.readers.count) of \(pages.maxReaders) slots in use")
            if !pages.readers.isEmpty {
                emit(headers: ["pid", "thread", "snapshot"], text: pages.readers.map { reader in
                    [String(reader.processIdentifier), reader.thread, reader.transactionID.map { "transaction \($0)" } ?? "none (idle)"]
                }, rightAligned: [0])
            }
        }
        print("")
        emit(headers: ["entity", "objects", "bytes"], text: entityUse(statistics).map { use in
            [use.entity, String(use.objects), Self.bytes(use.bytes)]
        }, rightAligned: [1, 2])
        print("")
        let rows = statistics.spaces.map { space in
            [[space.entity, space.kind == "records" ? "records" : space.part ?? space.kind].compactMap { $0 }.joined(separator: " "),
             space.tree.map { String($0.depth) } ?? "", space.tree.map { String($0.totalPages) } ?? "",
             Self.bytes(space.bytes), String(space.entries)]
        }
        if pages != nil {
            emit(headers: ["database", "depth", "pages", "bytes", "entries"], text: rows, rightAligned: [1, 2, 3, 4])
        } else {
            emit(headers: ["space", "bytes", "entries"], text: rows.map { [$0[0], $0[3], $0[4]] }, rightAligned: [1, 2])
        }
    }

    /// Objects and bytes (records, indexes, relationships) of each entity.
    private func entityUse(_ statistics: StoreStatistics) -> [(entity: String, objects: Int, bytes: Int)] {
        model.entities.map { entity in
            let spaces = statistics.spaces.filter { $0.entity == entity.name }
            let objects = spaces.first { $0.kind == "records" }?.entries ?? 0
            return (entity.name, objects, spaces.reduce(0) { $0 + $1.bytes })
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
