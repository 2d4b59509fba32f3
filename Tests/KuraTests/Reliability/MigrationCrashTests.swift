import Foundation
import Kura
import KuraTestSupport
import Testing

/// A process migrating a 100k-object store (every record rewritten, an index
/// built) is killed with SIGKILL at a random moment; after each kill the
/// store is either the old one, opening with the old model unchanged, or the
/// new one, opening with the new model fully migrated: never a mix.
///
/// 6 trials by default; set KURA_MIGRATION_TRIALS (e.g. 300) for more, and
/// KURA_MIGRATION_OBJECTS for another size.
@Suite(.serialized) struct MigrationCrashTests {
    /// Copies `original` to `path`, has the helper's `command` open it, and
    /// kills the helper at a random moment up to `seconds` after it said
    /// `opening`: killed, or done by then.
    static func kill(
        _ command: String, opening original: String, at path: String, within seconds: Double, _ generator: inout SplitMix64, trial: Int
    ) throws {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + "-lock")
        try FileManager.default.copyItem(atPath: original, toPath: path)
        let child = try Helper.start([command, path])
        _ = Helper.read(child, untilLineStartingWith: "opening")
        usleep(useconds_t(Double.random(in: 0...seconds, using: &generator) * 1_000_000))
        child.kill(SIGKILL)
        let termination = try child.wait()
        #expect(termination == .signaled(SIGKILL) || termination == .exited(0), "trial \(trial): \(termination)")
    }

    @Test func aMigrationKilledAtAnyMomentLeavesTheOldStoreOrTheNewOne() throws {
        let environment = ProcessInfo.processInfo.environment
        let trials = Int(environment["KURA_MIGRATION_TRIALS"] ?? "") ?? 6
        let count = Int(environment["KURA_MIGRATION_OBJECTS"] ?? "") ?? 100_000
        let store = try TestStore(engine: .lmdb)
        let original = store.directory.file("original.kura")
        do {
            let container = try PersistentContainer(path: original, model: MigrationWorkload.v1())
            try MigrationWorkload.fill(container, count: count)
            container.close()
        }
        // How long an uninterrupted migration takes, to spread the kills over it.
        let timing = store.directory.file("timing.kura")
        try FileManager.default.copyItem(atPath: original, toPath: timing)
        let started = Date()
        let complete = try Helper.start(["migrate", timing])
        _ = Helper.read(complete, untilLineStartingWith: "migrated")
        #expect(try complete.wait() == .exited(0))
        let duration = Date().timeIntervalSince(started)

        var generator = SplitMix64(seed: 20_261_123)
        var outcomes = (old: 0, new: 0)
        for trial in 0..<trials {
            try Self.kill("migrate", opening: original, at: store.path, within: duration * 1.6, &generator, trial: trial)

            let version = try PersistentContainer(path: store.path).model.versionIdentifier
            let model = version == "2" ? try MigrationWorkload.v2() : try MigrationWorkload.v1()
            let container = try PersistentContainer(path: store.path, model: model, migration: .disabled)
            let context = container.newContext()
            #expect(try context.count(for: FetchRequest(entityName: "Article")) == count, "trial \(trial)")
            for number in [0, 1, count / 2, count - 1] {
                let request = FetchRequest(entityName: "Article", predicate: try FetchPredicate(format: "title == %@", MigrationWorkload.title(number)))
                let found = try context.fetch(request)
                #expect(found.count == 1, "trial \(trial): article \(number)")
                let rating = Double(MigrationWorkload.rating(number))
                #expect(try found.first?.value(forKey: "rating") == (version == "2" ? .double(rating) : .float(Float(rating))))
                if version == "2" {
                    #expect(try context.explain(request).description.contains("USING INDEX title"), "trial \(trial)")
                }
            }
            if trial % 3 == 0 {
                let report = try container.store.check()
                #expect(report.isConsistent, "trial \(trial): \(report.problems.prefix(3))")
            }
            context.reset()
            container.close()
            if version == "2" { outcomes.new += 1 } else { outcomes.old += 1 }
        }
        if trials >= 20 { #expect(outcomes.old > 0 && outcomes.new > 0, "the kills missed one side: \(outcomes)") }
        print("migration crash trials: \(trials) kills of a \(count)-object migration (\(String(format: "%.2f", duration)) s uninterrupted): \(outcomes.old) left the old store, \(outcomes.new) the new one, 0 mixed")
    }

    /// A store whose ordered to-manys are lists (format 3: 20 lists of
    /// 1,500 items, in `items` and reversed in `picks`) opened read-write
    /// by a process killed at a random moment of the upgrade to order keys:
    /// the store is then format 3 with its lists or format 5 with its
    /// entries, each list in its order, consistent. Same trial counts as above.
    @Test func anOrderedListUpgradeKilledAtAnyMomentLeavesTheListsOrTheOrderKeys() throws {
        let trials = Int(ProcessInfo.processInfo.environment["KURA_MIGRATION_TRIALS"] ?? "") ?? 6
        let (lists, length) = (20, 1_500)
        let store = try TestStore(engine: .lmdb)
        let original = store.directory.file("original.kura")
        do {
            let container = try PersistentContainer(path: original, model: OrderedListWorkload.model())
            try OrderedListWorkload.fill(container, lists: lists, length: length)
            container.close()
        }
        try OrderedListFormatTests.makeListStore(original, orderSpaces: ["kura.order.List.items", "kura.order.List.picks"])
        let expected = (0..<lists).map { OrderedListWorkload.items(of: $0, length: length) }

        let timing = store.directory.file("timing.kura")
        try FileManager.default.copyItem(atPath: original, toPath: timing)
        let started = Date()
        let complete = try Helper.start(["upgrade", timing])
        let said = String(decoding: Helper.read(complete, untilLineStartingWith: "upgraded"), as: UTF8.self)
        #expect(said.contains("upgraded upgraded from format 3\n"), "\(said)")
        #expect(try complete.wait() == .exited(0))
        let duration = Date().timeIntervalSince(started)

        var generator = SplitMix64(seed: 20_261_128)
        var outcomes = (lists: 0, keys: 0)
        var options = StoreOptions()
        options.isReadOnly = true
        for trial in 0..<trials {
            try Self.kill("upgrade", opening: original, at: store.path, within: duration * 1.6, &generator, trial: trial)

            let format = try OrderedListFormatTests.storedFormat(store.path)
            #expect(format == 3 || format == 5, "trial \(trial)")
            let container = try PersistentContainer(path: store.path, options: options)
            let context = container.newContext()
            #expect(try OrderedListWorkload.orders(context, "items") == expected, "trial \(trial)")
            #expect(try OrderedListWorkload.orders(context, "picks") == expected.map { $0.reversed() }, "trial \(trial)")
            if trial % 3 == 0 {
                let report = try container.store.check()
                #expect(report.isConsistent, "trial \(trial): \(report.problems.prefix(3))")
            }
            context.reset()
            container.close()
            if format == 5 { outcomes.keys += 1 } else { outcomes.lists += 1 }
        }
        if trials >= 20 { #expect(outcomes.lists > 0 && outcomes.keys > 0, "the kills missed one side: \(outcomes)") }
        print("ordered-list upgrade crash trials: \(trials) kills of a \(lists * length)-item upgrade (\(String(format: "%.2f", duration)) s uninterrupted): \(outcomes.lists) left the lists, \(outcomes.keys) the order keys, 0 mixed")
    }
}

@Suite struct MigratedUnderAnotherProcessTests {
    @Test(arguments: ["save", "read"])
    func aProcessWithTheOlderModelCanNeitherSaveNorMisreadAfterAMigration(_ action: String) throws {
        let store = try TestStore(engine: .lmdb)
        do {
            let container = try PersistentContainer(path: store.path, model: MigrationWorkload.v1())
            try MigrationWorkload.fill(container, count: 10)
            container.close()
        }
        let older = try ChildProcess(Helper.path, ["later", store.path, action], standardInput: .pipe)
        _ = Helper.read(older, untilLineStartingWith: "open")
        let container = try PersistentContainer(path: store.path, model: MigrationWorkload.v2())
        #expect(container.store.lastMigration != nil)
        try older.send("")
        let output = String(decoding: older.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try older.wait() == .exited(1))
        #expect(output.contains("another process migrated"), "\(output)")
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article")) == 10)
        #expect(try container.store.check().isConsistent)
    }
}
