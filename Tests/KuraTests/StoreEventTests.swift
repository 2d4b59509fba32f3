import Foundation
import Kura
import KuraTestSupport
import Synchronization
import Testing

/// ``StoreEventReporter``: what a store tells a server's logs and metrics.
@Suite struct StoreEventTests {
    /// Collects the events a reporter gets.
    final class Events: Sendable {
        let all = Mutex<[StoreEvent]>([])
        var saves: [SaveEvent] { all.withLock { $0.compactMap { if case .save(let save) = $0 { save } else { nil } } } }
        var slowFetches: [SlowFetchEvent] {
            all.withLock { $0.compactMap { if case .slowFetch(let fetch) = $0 { fetch } else { nil } } }
        }
        var migrations: [MigrationReport] {
            all.withLock { $0.compactMap { if case .migration(let report) = $0 { report } else { nil } } }
        }

        func reporter(slowFetchThreshold: Duration = .zero) -> StoreEventReporter {
            StoreEventReporter(slowFetchThreshold: slowFetchThreshold) { event in self.all.withLock { $0.append(event) } }
        }
    }

    @Test func eachSaveIsReportedWithItsCountsDurationAndSettledConflicts() throws {
        let store = try TestStore()
        let events = Events()
        var options = StoreOptions()
        options.eventReporter = events.reporter(slowFetchThreshold: .seconds(3_600))
        let container = try store.open(.news(), options: options)
        let context = container.newContext()
        let news = try ObservationTests.insertNews(context, [1, 2, 3])
        news[0].title = "changed"
        context.delete(news[1])
        try context.save()
        // A conflict the merge policy settles: another context saved first.
        let other = container.newContext()
        let mine = try #require(try other.fetch(FetchRequest<News>(predicate: \.sortOrder == 3)).first)
        news[2].title = "theirs"
        try context.save()
        other.mergePolicy = .mergeByPropertyObjectTrump
        mine.body = "mine"
        try other.save()

        let saves = events.saves
        try #require(saves.count == 4)
        #expect((saves[0].inserted, saves[0].updated, saves[0].deleted) == (3, 0, 0))
        #expect((saves[1].inserted, saves[1].updated, saves[1].deleted) == (0, 1, 1))
        #expect(saves[2].conflictsSettled == 0 && saves[2].updated == 1)
        // The last met the third's change, and the merge policy settled it.
        #expect(saves[3].conflictsSettled == 1 && saves[3].error == nil)
        #expect(events.all.withLock { $0.count } == 4, "no fetch was slower than an hour")
        #expect(saves.allSatisfy { $0.duration > .zero && $0.store == container.store.path })
    }

    @Test func aFailedSaveIsReportedWithItsErrorAndWroteNothing() throws {
        let store = try TestStore()
        let events = Events()
        var options = StoreOptions()
        options.eventReporter = StoreEventReporter(reportsEverySave: false) { event in events.all.withLock { $0.append(event) } }
        let container = try store.open(.news(), options: options)
        let context = container.newContext()
        let first = try ObservationTests.insertNews(context, [1])[0]
        let twin = News(context: context)
        twin.objectId = first.objectId
        #expect(throws: KuraError.self) { try context.save() }
        let saves = events.saves
        try #require(saves.count == 1, "the committed save isn't reported when only failures are")
        #expect((saves[0].error as? KuraError)?.code == .uniqueConstraintViolated)
        #expect(saves[0].inserted == 1)
    }

    @Test func aFetchOrCountAtLeastTheThresholdIsReportedWithItsPlanAndFasterOnesAreNot() throws {
        let store = try TestStore()
        let events = Events()
        var options = StoreOptions()
        options.eventReporter = events.reporter(slowFetchThreshold: .zero)
        let container = try store.open(.news(), options: options)
        let context = container.newContext()
        _ = try ObservationTests.insertNews(context, Array(0..<20))
        let request = FetchRequest<News>(predicate: \.sortOrder < 5)
        #expect(try context.fetch(request).count == 5)
        #expect(try context.count(for: request) == 5)
        #expect(try context.fetchObjectIDs(request).count == 5)
        let fetches = events.slowFetches
        #expect(fetches.map(\.kind) == [.objects, .count, .objectIDs])
        #expect(fetches.map(\.resultCount) == [5, 5, 5])
        #expect(fetches.allSatisfy { $0.entityName == "News" && $0.plan.contains("sortOrder < 5") }, "\(fetches.map(\.plan))")

        // The same store with a threshold no fetch reaches: nothing.
        let quiet = Events()
        container.close()
        options.eventReporter = quiet.reporter(slowFetchThreshold: .seconds(3_600))
        let reopened = try store.open(.news(), options: options)
        _ = try reopened.newContext().fetch(request)
        #expect(quiet.slowFetches.isEmpty)
    }

    @Test func aMigrationIsReportedWithItsReport() throws {
        let store = try TestStore()
        let events = Events()
        var options = StoreOptions()
        options.eventReporter = events.reporter(slowFetchThreshold: .seconds(3_600))
        try store.open(ModelVersions.v1(version: "1"), options: options).close()
        #expect(events.migrations.isEmpty)
        let v2 = try ModelVersions.articles([
            ModelVersions.attribute("title", .string, default: .string("")),
            ModelVersions.attribute("views", .int16, default: .int(0)),
        ], version: "2")
        let container = try store.open(v2, options: options)
        defer { container.close() }
        let reports = events.migrations
        try #require(reports.count == 1)
        #expect(reports[0].versions == ["1", "2"])
        #expect(container.store.lastMigration?.versions == reports[0].versions)
    }

    @Test func reportersAreEqualWhenTheyAreCopiesOfOneAndStoresWithoutOneReadNoClock() {
        let events = Events()
        let reporter = events.reporter()
        var options = StoreOptions()
        options.eventReporter = reporter
        var same = StoreOptions()
        same.eventReporter = reporter
        #expect(options == same)
        same.eventReporter = events.reporter()
        #expect(options != same, "another closure")
        #expect(StoreOptions().eventReporter == nil)
    }
}
