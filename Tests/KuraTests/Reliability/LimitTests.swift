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
        let store = try TestStore(engine: .lmdb)
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
        let store = try TestStore(engine: .lmdb)
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
        // LMDB reports a write cut short at the limit as EIO, one refused
        // outright as EFBIG: both are told as the file size limit.
        #expect(output.contains("failed: '\(store.path)': the process's file size limit (ulimit -f) was reached"), "\(output)")
        #expect(output.contains("pending 2000"), "the context kept its changes: \(output)")
        let container = try store.open(CrashWorkload.model())
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == 50)
        #expect(try container.store.check().isConsistent)
    }
}

/// A real full disk: a small tmpfs, mounted for the test (which needs root,
/// as CI runs; elsewhere the test is reported as skipped).
@Suite(.serialized) struct FullDiskTests {
    static let canMount: Bool = {
        guard geteuid() == 0, let directory = try? TemporaryDirectory() else { return false }
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(directory.path)
        return true
    }()

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root")) func aSaveOnAFullDiskSaysSoWritesNothingAndSucceedsOnceThereIsRoom() throws {
        let directory = try TemporaryDirectory()
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=3m") == 0 else {
            Issue.record("mount failed: \(String(cString: strerror(errno)))")
            return
        }
        defer { umount2(directory.path, Int32(MNT_DETACH)) }
        // Room held back, to be given back after the disk filled up.
        let reserve = directory.file("reserve")
        #expect(FileManager.default.createFile(atPath: reserve, contents: Data(count: 1 << 20)))

        var options = StoreOptions()
        options.initialSize = 64 << 10
        let path = directory.file("full.kura")
        let container = try PersistentContainer(path: path, model: CrashWorkload.model(), options: options)
        let context = container.newContext()
        var saved = 0
        var failure: KuraError?
        for batch in 0..<200 where failure == nil {
            for index in 0..<100 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("b\(batch)-\(index)", forKey: "key")
                try item.setValue(index, forKey: "value")
                try item.setValue(batch, forKey: "batch")
                try item.setValue(String(repeating: "z", count: 300), forKey: "padding")
            }
            do {
                try context.save()
                saved += 100
            } catch let error as KuraError {
                failure = error
            }
        }
        let error = try #require(failure, "the disk never filled up")
        #expect(error == .storage(path: path, failure: .diskFull), "\(error)")
        #expect(error.localizedDescription == "'\(path)': the disk is full")
        #expect(context.insertedObjects.count == 100, "the context keeps the failed save's changes")
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == saved, "nothing partial")
        #expect(try container.store.check().isConsistent)

        try FileManager.default.removeItem(atPath: reserve)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Item")) == saved + 100)
        container.close()
        let reopened = try PersistentContainer(path: path, model: CrashWorkload.model())
        #expect(try reopened.store.check().isConsistent)
        reopened.close()
    }
}
