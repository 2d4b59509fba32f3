import Foundation
import Kura
#if PostgreSQL
import KuraPostgres
#endif
import KuraTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line at once, unbuffered: an acknowledgement must reach the
/// parent before the process can be killed.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The store a command's STORE argument names: a `postgres://` URL, or an LMDB file.
func storeDescription(_ location: String, options: StoreOptions = StoreOptions()) -> StoreDescription {
    #if PostgreSQL
    if location.hasPrefix("postgres") { return .postgres(url: location, options: options) }
    #endif
    return .lmdb(path: location, options: options)
}

/// Commands that exercise Kura across processes.
enum KuraCommands {
    /// `crash-writer STORE SEED [MAX]`: saves batches of ``CrashWorkload`` in a
    /// loop, printing `ack N` after batch N's save returned, until killed (or
    /// MAX batches). Continues from the batch the store holds.
    static func crashWriter(_ arguments: [String]) throws {
        guard arguments.count >= 2, let seed = UInt64(arguments[1]) else {
            throw HelperError.usage("crash-writer PATH SEED [MAX]")
        }
        let maximum = arguments.count > 2 ? Int(arguments[2]) ?? Int.max : Int.max
        var options = StoreOptions()
        options.initialSize = 1 << 20
        let container = try PersistentContainer(store: storeDescription(arguments[0], options: options), model: CrashWorkload.model())
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

    /// `open-migration-model STORE VERSION`: opens the store with
    /// ``MigrationWorkload``'s model `VERSION` (1 or 2), migrating it when
    /// that is allowed, and says `opened VERSION` (or exits with the error).
    static func openMigrationModel(_ arguments: [String]) throws {
        guard arguments.count == 2, ["1", "2"].contains(arguments[1]) else { throw HelperError.usage("open-migration-model STORE 1|2") }
        let model = arguments[1] == "1" ? try MigrationWorkload.v1() : try MigrationWorkload.v2()
        let container = try PersistentContainer(store: storeDescription(arguments[0]), model: model)
        say("opened \(container.model.versionIdentifier ?? "")")
        container.close()
    }

    /// `migrate PATH`: opens the store with ``MigrationWorkload/v2()``,
    /// which migrates it, and says `migrated` with the time it took.
    static func migrate(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperError.usage("migrate PATH") }
        say("opening")
        let container = try PersistentContainer(path: arguments[0], model: MigrationWorkload.v2())
        say("migrated \(container.store.lastMigration?.seconds ?? 0)")
    }

    /// `upgrade PATH`: opens the store read-write with its own model, which
    /// upgrades an older format, and says `upgraded`.
    static func upgrade(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperError.usage("upgrade PATH") }
        say("opening")
        let container = try PersistentContainer(path: arguments[0])
        say("upgraded \(try container.store.modelHistory().last?.change ?? "")")
        container.close()
    }

    /// `history-writer STORE`: with history tracked and the author `helper`,
    /// retitles "article 0" to "from the helper", deletes "article 1" and
    /// inserts "article new", in one save; says `saved`.
    static func historyWriter(_ arguments: [String]) throws {
        guard arguments.count == 1 || arguments.count == 2 && arguments[1] == "purge" else {
            throw HelperError.usage("history-writer STORE [purge]")
        }
        var options = StoreOptions()
        options.tracksHistory = true
        let container = try PersistentContainer(store: storeDescription(arguments[0], options: options), model: MigrationWorkload.v1())
        let context = container.newContext()
        context.transactionAuthor = "helper"
        for article in try context.fetch(FetchRequest(entityName: "Article", predicate: try FetchPredicate(format: "title IN {'article 0', 'article 1'}"))) {
            if try article.value(forKey: "title") == .string("article 0") {
                try article.setValue(.string("from the helper"), forKey: "title")
            } else {
                context.delete(article)
            }
        }
        try context.insertNewObject(forEntityName: "Article").setValue(.string("article new"), forKey: "title")
        try context.save()
        // With `purge`, the history goes at once: an observer can't read what changed.
        if arguments.count == 2, let last = try container.store.lastHistoryToken() { try container.store.purgeHistory(through: last) }
        say("saved")
    }

    /// `commit-timer PATH COUNT`: COUNT saves of one article each, 100 ms
    /// apart; after each, says `saved NANOSECONDS` (CLOCK_REALTIME).
    static func commitTimer(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[1]) else { throw HelperError.usage("commit-timer PATH COUNT") }
        let container = try PersistentContainer(path: arguments[0], model: MigrationWorkload.v1())
        let context = container.newContext()
        say("open")
        for number in 0..<count {
            usleep(100_000)
            try context.insertNewObject(forEntityName: "Article").setValue(.string("timed \(number)"), forKey: "title")
            try context.save()
            say("saved \(realtimeNanoseconds())")
        }
    }

    /// `watch-idle PATH SECONDS`: watches the store's commits for SECONDS
    /// with nothing written, then says `cpu MICROSECONDS` (this process's
    /// user and system time while watching).
    static func watchIdle(_ arguments: [String]) throws {
        guard arguments.count == 2, let seconds = Double(arguments[1]) else { throw HelperError.usage("watch-idle PATH SECONDS") }
        let container = try PersistentContainer(path: arguments[0], model: MigrationWorkload.v1())
        let commits = try container.store.commits()
        let before = cpuMicroseconds()
        usleep(useconds_t(seconds * 1_000_000))
        say("cpu \(cpuMicroseconds() - before)")
        _ = commits
    }

    /// `later PATH save|read`: opens the store with
    /// ``MigrationWorkload/v1()``, says `open`, waits for its standard input
    /// to close, then inserts an article and saves, or reads every rating;
    /// says `done` or the error.
    static func later(_ arguments: [String]) throws {
        guard arguments.count == 2 else { throw HelperError.usage("later PATH save|read") }
        let container = try PersistentContainer(path: arguments[0], model: MigrationWorkload.v1())
        let context = container.newContext()
        say("open")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        if arguments[1] == "save" {
            try context.insertNewObject(forEntityName: "Article").setValue(.string("late"), forKey: "title")
            try context.save()
        } else {
            for article in try context.fetch(FetchRequest(entityName: "Article")) { _ = try article.value(forKey: "rating") }
        }
        say("done")
    }

    /// `increment STORE COUNT`: adds 1 to both counters COUNT times.
    static func increment(_ arguments: [String]) throws {
        guard arguments.count == 2, let count = Int(arguments[1]) else { throw HelperError.usage("increment STORE COUNT") }
        let container = try PersistentContainer(store: storeDescription(arguments[0]), model: ConcurrencyWorkload.model())
        let conflicts = try ConcurrencyWorkload.increment(container, count: count)
        print("done conflicts=\(conflicts)")
    }

    /// `insert-entries STORE WORKER COUNT`.
    static func insertEntries(_ arguments: [String]) throws {
        guard arguments.count == 3, let worker = Int(arguments[1]), let count = Int(arguments[2]) else {
            throw HelperError.usage("insert-entries STORE WORKER COUNT")
        }
        let container = try PersistentContainer(store: storeDescription(arguments[0]), model: ConcurrencyWorkload.model())
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

    /// `growth-writer PATH WRITER SAVES PER-SAVE PAYLOAD-BYTES`: saves
    /// ``GrowthWorkload`` batches into a store whose map starts at 64 KiB,
    /// then prints `wrote N`.
    static func growthWriter(_ arguments: [String]) throws {
        guard arguments.count == 5, let writer = Int(arguments[1]), let saves = Int(arguments[2]),
              let perSave = Int(arguments[3]), let payload = Int(arguments[4]) else {
            throw HelperError.usage("growth-writer PATH WRITER SAVES PER-SAVE PAYLOAD-BYTES")
        }
        let container = try PersistentContainer(path: arguments[0], model: GrowthWorkload.model(), options: GrowthWorkload.options())
        try GrowthWorkload.write(container, writer: writer, saves: saves, perSave: perSave, payloadSize: payload)
        say("wrote \(saves * perSave)")
    }

    /// `growth-reader PATH ro|rw PER-SAVE UNTIL-OBJECTS SECONDS`: reads the
    /// ``GrowthWorkload`` store in a loop, read-only or read-write, until it
    /// has seen UNTIL-OBJECTS objects or SECONDS passed. Never writes, so it
    /// must adopt the map sizes the writers give the file. Prints
    /// `reads R failures F torn T objects O` and the first failure.
    static func growthReader(_ arguments: [String]) throws {
        guard arguments.count == 5, ["ro", "rw"].contains(arguments[1]), let perSave = Int(arguments[2]),
              let until = Int(arguments[3]), let seconds = Double(arguments[4]) else {
            throw HelperError.usage("growth-reader PATH ro|rw PER-SAVE UNTIL-OBJECTS SECONDS")
        }
        let readOnly = arguments[1] == "ro"
        let container = try readOnly
            ? PersistentContainer(path: arguments[0], options: GrowthWorkload.options(readOnly: true))
            : PersistentContainer(path: arguments[0], model: GrowthWorkload.model(), options: GrowthWorkload.options())
        let deadline = Date().addingTimeInterval(seconds)
        var reads = 0
        var failures = 0
        var torn = 0
        var objects = 0
        var firstFailure = ""
        while objects < until && Date() < deadline {
            do {
                let seen = try GrowthWorkload.read(container, perSave: perSave)
                objects = seen.objects
                torn += seen.tornBatches
            } catch {
                failures += 1
                if firstFailure.isEmpty { firstFailure = "\(error)" }
            }
            reads += 1
        }
        say("reads \(reads) failures \(failures) torn \(torn) objects \(objects)")
        if !firstFailure.isEmpty { say("first failure: \(firstFailure)") }
    }

    /// `check-store PATH`: opens the store read-only with its own model and
    /// runs ``PersistentStore/check(problemLimit:)``; prints `consistent` or
    /// `problems N` and the first problems, or the error that stopped it.
    static func checkStore(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperError.usage("check-store PATH") }
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: arguments[0], options: options)
        let report = try container.store.check(problemLimit: 5)
        say(report.isConsistent ? "consistent" : "problems \(report.problemCount)")
        for problem in report.problems { say(problem) }
    }

    /// `open-read-only PATH`: opens the store read-only with its own model,
    /// as an app would (without `allowsReadingWithoutLock`),
    /// and prints how many entities it has.
    static func openReadOnly(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperError.usage("open-read-only PATH") }
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: arguments[0], options: options)
        say("opened \(container.model.entities.count) entities")
    }
}

func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

func cpuMicroseconds() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}
