import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct LimitTests {
    func item(_ context: ManagedObjectContext, _ key: String, padding: Int) throws {
        let item = try context.insertNewObject(forEntityName: "Item")
        try item.setValue(key, forKey: "key")
        try item.setValue(1, forKey: "value")
        try item.setValue(0, forKey: "batch")
        try item.setValue(String(repeating: "z", count: padding), forKey: "padding")
    }

    @Test func aStoreAtItsMaximumSizeRefusesASaveWholeAndAcceptsOneThatFits() throws {
        let store = try TestStore()
        var options = StoreOptions()
        options.initialSize = 128 << 10
        options.maximumSize = 2 << 20
        let container = try store.open(CrashWorkload.model(), options: options)
        let context = container.newContext()
        for index in 0..<300 { try item(context, "a\(index)", padding: 2000) }
        try context.save()
        let stored = try container.newContext().count(for: FetchRequest(entityName: "Item"))
        for index in 0..<2000 { try item(context, "b\(index)", padding: 2000) }
        #expect(throws: KuraError.storeFull(maximumBytes: 2 << 20)) { try context.save() }
        #expect(context.insertedObjects.count == 2000, "the context keeps its changes")
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == stored, "nothing partial")
        #expect(try container.store.check().isConsistent)
        for object in context.insertedObjects.sorted(by: { $0.objectID.uriRepresentation < $1.objectID.uriRepresentation }).dropFirst(20) {
            context.delete(object)
        }
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == stored + 20)
    }

    @Test func aFullDiskFailsTheSaveAndTheStoreReopensIntact() throws {
        let store = try TestStore()
        do {
            let container = try store.open(CrashWorkload.model())
            let context = container.newContext()
            for index in 0..<50 { try item(context, "a\(index)", padding: 500) }
            try context.save()
            container.close()
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        // A child whose file size limit is a little above the store's size
        // (the way RLIMIT_FSIZE stands in for a full disk): its big save fails.
        let (termination, output) = try Helper.run(["file-size-limit", store.path, String(size + 64 << 10)])
        #expect(termination == .exited(0), "\(output)")
        #expect(output.contains("failed: "), "\(output)")
        // LMDB reports a write cut short at the limit as EIO; one refused
        // outright as EFBIG (or ENOSPC on a real full disk).
        #expect(["File too large", "No space", "Input/output error"].contains { output.contains($0) }, "\(output)")
        #expect(output.contains("pending 2000"), "the context kept its changes: \(output)")
        let container = try store.open(CrashWorkload.model())
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == 50)
        #expect(try container.store.check().isConsistent)
    }
}
