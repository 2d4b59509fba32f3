import Foundation
import Kura
import KuraTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Writes a line at once, unbuffered: an acknowledgement must reach the
/// parent before the process can be killed.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Commands that exercise Kura across processes.
enum KuraCommands {
    /// `crash-writer PATH SEED [MAX]`: saves batches of ``CrashWorkload`` in a
    /// loop, printing `ack N` after batch N's save returned, until killed (or
    /// MAX batches). Continues from the batch the store holds.
    static func crashWriter(_ arguments: [String]) throws {
        guard arguments.count >= 2, let seed = UInt64(arguments[1]) else {
            throw HelperError.usage("crash-writer PATH SEED [MAX]")
        }
        let maximum = arguments.count > 2 ? Int(arguments[2]) ?? Int.max : Int.max
        var options = StoreOptions()
        options.initialSize = 1 << 20
        let container = try PersistentContainer(path: arguments[0], model: CrashWorkload.model(), options: options)
        let context = container.newContext()
        var objects: [String: ManagedObject] = [:]
        for item in try context.fetch(FetchRequest(entityName: "Item")) {
            objects[try item.value(forKey: "key", as: String.self)] = item
        }
        var (items, last) = try CrashWorkload.read(context)
        say("start \(last + 1)")
        var number = last + 1
        while number <= maximum {
            let batch = CrashWorkload.batch(number, seed: seed, items: items)
            try CrashWorkload.save(batch, number: number, in: context, objects: &objects)
            CrashWorkload.apply(batch, to: &items)
            say("ack \(number)")
            last = number
            number += 1
        }
    }

    /// `increment PATH COUNT`: adds 1 to both counters COUNT times.
    static func increment(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[1]) else { throw HelperError.usage("increment PATH COUNT") }
        let container = try PersistentContainer(path: arguments[0], model: ConcurrencyWorkload.model())
        let conflicts = try ConcurrencyWorkload.increment(container, count: count)
        print("done conflicts=\(conflicts)")
    }

    /// `insert-entries PATH WORKER COUNT`.
    static func insertEntries(_ arguments: [String]) throws {
        guard arguments.count == 3, let worker = Int(arguments[1]), let count = Int(arguments[2]) else {
            throw HelperError.usage("insert-entries PATH WORKER COUNT")
        }
        let container = try PersistentContainer(path: arguments[0], model: ConcurrencyWorkload.model())
        try ConcurrencyWorkload.insertEntries(container, worker: worker, count: count)
        print("done")
    }

    /// `file-size-limit PATH BYTES`: with the process's file size limit at
    /// BYTES (SIGXFSZ ignored, so writes fail with EFBIG as on a full disk),
    /// tries a save that doesn't fit, then prints what happened.
    static func fileSizeLimit(_ arguments: [String]) throws {
        guard arguments.count == 2, let bytes = Int(arguments[1]) else { throw HelperError.usage("file-size-limit PATH BYTES") }
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { throw HelperError.failed("setrlimit failed") }
        let container = try PersistentContainer(path: arguments[0], model: CrashWorkload.model())
        let context = container.newContext()
        for index in 0..<2000 {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("big-\(index)", forKey: "key")
            try item.setValue(index, forKey: "value")
            try item.setValue(0, forKey: "batch")
            try item.setValue(String(repeating: "y", count: 2000), forKey: "padding")
        }
        do {
            try context.save()
            print("saved")
        } catch {
            print("failed: \(error)")
            print("pending \(context.insertedObjects.count)")
        }
    }
}
