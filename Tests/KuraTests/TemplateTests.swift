import Foundation
import Kura
import KuraTestSupport
import Testing

/// Seats of a hall, unique by (block, row, number).
final class Seat: ManagedObject {
    @Attribute var block: String = ""
    @Attribute var row: Int = 0
    @Attribute var number: Int = 0
    @Attribute var holder: String?
    override class var indexes: [IndexDescription] { [.unique("block", "row", "number")] }
}

@Suite struct TemplateTests {
    static func model() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel.news()
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News"), forName: "allNews")
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "objectId == $objectId"), forName: "getNews")
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "News", predicate: "sortOrder BETWEEN $range AND title BEGINSWITH[c] $prefix"), forName: "search")
        return model
    }

    @Test func theDBAccessorsScenarioRuns() throws {
        let store = try TestStore()
        let model = try Self.model()
        let context = try store.open(model).newContext()
        var ids: [String] = []
        for order in [3, 1, 2] {
            let news = News(context: context)
            news.sortOrder = order
            news.title = "News \(order)"
            ids.append(news.objectId)
        }
        try context.save()

        let all = model.fetchRequestTemplate(forName: "allNews")!.sorted(by: "sortOrder")
        #expect(try context.fetch(all, as: News.self).map(\.sortOrder) == [1, 2, 3])
        let one = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": ids[0]])
        let news = try context.fetch(one).last as? News
        #expect(news?.sortOrder == 3)
        #expect(one.predicate?.predicateFormat == "objectId == \"\(ids[0])\"")
        #expect(model.fetchRequestTemplate(forName: "getNews")?.predicate?.predicateFormat == "objectId == $objectId")

        let search = try model.fetchRequestFromTemplate(withName: "search", substitutionVariables: ["range": [2, 3], "prefix": "NEWS"])
        #expect(try context.fetch(search.sorted(by: "sortOrder"), as: News.self).map(\.sortOrder) == [2, 3])
    }

    @Test func aTemplateSetAgainOrRemovedIsWhatTheNextRequestFromItGets() throws {
        let model = try Self.model()
        let first = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "a"])
        #expect(first.predicate?.predicateFormat == "objectId == \"a\"")
        // The model remembers the template it gave last; setting it again must replace that.
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "title == $objectId"), forName: "getNews")
        let second = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "a"])
        #expect(second.predicate?.predicateFormat == "title == \"a\"")
        try model.setFetchRequestTemplate(nil, forName: "getNews")
        #expect(throws: KuraError.unknownTemplate("getNews")) {
            try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "a"])
        }
        #expect(try model.fetchRequestFromTemplate(withName: "allNews", substitutionVariables: [:]).predicate == nil)
    }

    @Test func substitutionValuesOfEveryCommonKindAndFoundationsBridgedOnesFindTheSameObjects() throws {
        let store = try TestStore()
        let model = try Self.model()
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "sortOrder == $order"), forName: "byOrder")
        let context = try store.open(model).newContext()
        var ids: [String] = []
        for order in 0..<3 {
            let news = News(context: context)
            news.sortOrder = order
            ids.append(news.objectId)
        }
        try context.save()
        func orders(_ name: String, _ variables: [String: Any]) throws -> [Int] {
            try context.fetch(model.fetchRequestFromTemplate(withName: name, substitutionVariables: variables), as: News.self).map(\.sortOrder)
        }
        // Exact types, bridged Foundation objects, optionals, other integer
        // widths and attribute values all substitute alike.
        #expect(try orders("getNews", ["objectId": ids[1]]) == [1])
        #expect(try orders("getNews", ["objectId": NSString(string: ids[1])]) == [1])
        #expect(try orders("getNews", ["objectId": Optional(ids[1]) as Any]) == [1])
        #expect(try orders("getNews", ["objectId": AttributeValue.string(ids[2])]) == [2])
        #expect(try orders("byOrder", ["order": 2]) == [2])
        #expect(try orders("byOrder", ["order": NSNumber(value: 2)]) == [2])
        #expect(try orders("byOrder", ["order": Int32(1)]) == [1])
        #expect(try orders("byOrder", ["order": 1.0]) == [1])
        #expect(try orders("byOrder", ["order": Optional(0) as Any]) == [0])
    }

    /// A template over every attribute of a compound unique index looks
    /// the object up by the index key, built from the variables in the
    /// index's order whatever order the predicate names them in.
    @Test func aCompoundUniqueLookupBuildsItsKeyInTheIndexsOrder() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(Seat.self)
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "Seat", predicate: "number == $n AND block == $b AND row == $r"), forName: "seat")
        let container = try store.open(model)
        let context = container.newContext()
        for block in ["A", "B"] {
            for row in 1...3 {
                for number in 1...3 {
                    let seat = Seat(context: context)
                    (seat.block, seat.row, seat.number, seat.holder) = (block, row, number, "\(block)\(row)-\(number)")
                }
            }
        }
        try context.save()
        let reader = container.newContext()
        func holders(_ variables: [String: Any]) throws -> [String?] {
            try reader.fetch(model.fetchRequestFromTemplate(withName: "seat", substitutionVariables: variables), as: Seat.self).map(\.holder)
        }
        for (block, row, number) in [("A", 1, 2), ("B", 3, 1), ("A", 2, 3), ("B", 1, 1)] {
            #expect(try holders(["b": block, "r": row, "n": number]) == ["\(block)\(row)-\(number)"])
        }
        #expect(try holders(["b": "A", "r": 4, "n": 1]).isEmpty)
        #expect(try holders(["b": "A", "r": Optional<Int>.none as Any, "n": 1]).isEmpty)
        let request = try model.fetchRequestFromTemplate(withName: "seat", substitutionVariables: ["b": "B", "r": 2, "n": 3])
        #expect(request.predicate?.predicateFormat == "number == 3 AND block == \"B\" AND row == 2")
    }

    @Test func aUniqueLookupTemplateSeesUnsavedChangesAndTheSameInstances() throws {
        let store = try TestStore()
        let model = try Self.model()
        let context = try store.open(model).newContext()
        let saved = News(context: context)
        saved.title = "saved"
        let renamed = News(context: context)
        renamed.title = "renamed"
        let deleted = News(context: context)
        deleted.title = "deleted"
        try context.save()
        func lookUp(_ id: String, pending: Bool = true) throws -> [String] {
            var request = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": id])
            request.includesPendingChanges = pending
            return try context.fetch(request, as: News.self).map(\.title)
        }
        #expect(try lookUp(saved.objectId) == ["saved"])
        let again = try context.fetch(
            model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": saved.objectId]))
        #expect(again.first === saved)
        #expect(try lookUp("no such id").isEmpty)
        // A string key found in the index decides the match (no record check):
        // canonically equivalent spellings find each other, as `==` says.
        saved.objectId = "caf\u{E9}"
        try context.save()
        #expect(try lookUp("cafe\u{301}") == ["saved"])

        let oldID = renamed.objectId
        renamed.objectId = "new-id"
        context.delete(deleted)
        let inserted = News(context: context)
        inserted.title = "inserted"
        #expect(try lookUp(oldID).isEmpty)
        #expect(try lookUp("new-id") == ["renamed"])
        #expect(try lookUp(deleted.objectId).isEmpty)
        #expect(try lookUp(inserted.objectId) == ["inserted"])
        // Without pending changes the store decides, and the context's instances come back.
        #expect(try lookUp(oldID, pending: false) == ["renamed"])
        #expect(try lookUp(deleted.objectId, pending: false) == ["deleted"])
        #expect(try lookUp(inserted.objectId, pending: false).isEmpty)
    }

    /// A lookup by a unique string takes the index entry as the match, with
    /// no record check: it must agree with `==` (canonical equivalence) on
    /// every spelling, found or not, saved or not.
    @Test func uniqueStringLookupsAgreeWithEqualityOnEverySpelling() throws {
        let store = try TestStore()
        let model = try Self.model()
        let container = try store.open(model)
        let context = container.newContext()
        // Keys distinct under canonical equivalence; the queries add other spellings of them.
        let stored = ["", " ", "a", "A", "a ", "caf\u{E9}", "\u{212B}ngstr\u{F6}m", "e\u{301}\u{323}", "\u{1F1EF}\u{1F1F5}",
                      "x\u{0}y", "\u{FB01}", "\u{3C3}", "\u{1E9B}\u{323}", "\u{AC00}"]
        let queries = stored + ["cafe\u{301}", "\u{C5}ngstro\u{308}m", "A\u{30A}ngstr\u{F6}m", "e\u{323}\u{301}", "\u{1E9B}\u{323}",
                                "\u{17F}\u{323}\u{307}", "fi", "\u{3A3}", "x", "x\u{0}", "\u{1100}\u{1161}", "  ", "caf"]
        for (number, key) in stored.enumerated() {
            let news = News(context: context)
            news.objectId = key
            news.sortOrder = number
        }
        try context.save()
        func lookUp(_ key: String, in context: ManagedObjectContext) throws -> [Int] {
            try context.fetch(model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": key]), as: News.self)
                .map(\.sortOrder)
        }
        let fresh = container.newContext()
        for query in queries {
            let expected = stored.indices.filter { stored[$0] == query }
            #expect(try lookUp(query, in: fresh) == expected, "\(query.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(try lookUp(query, in: context) == expected, "registered objects, \(query.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func badTemplatesAreRefusedWhenRegisteredNotAtTheFirstFetch() throws {
        let model = try ManagedObjectModel.news()
        #expect(throws: KuraError.unknownAttribute(entity: "News", key: "objectID")) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "objectID == $id"), forName: "bad")
        }
        #expect(throws: KuraError.unknownEntity("Newz")) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "Newz"), forName: "bad")
        }
        #expect(throws: PredicateSyntaxError.self) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "objectId == "), forName: "bad")
        }
        #expect(throws: KuraError.self) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "News").sorted(by: "nope"), forName: "bad")
        }
        #expect(model.fetchRequestTemplate(forName: "bad") == nil)
    }

    @Test func substitutionErrorsNameTheTemplateOrVariable() throws {
        let model = try Self.model()
        #expect(throws: KuraError.unknownTemplate("getNewz")) {
            try model.fetchRequestFromTemplate(withName: "getNewz", substitutionVariables: [:])
        }
        #expect(throws: KuraError.missingSubstitutionVariable("objectId")) {
            try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectID": "x"])
        }
        #expect(throws: KuraError.substitutionTypeMismatch(variable: "objectId", expected: .string, found: "Int 42")) {
            try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": 42])
        }
        #expect(throws: KuraError.substitutionTypeMismatch(variable: "range", expected: .int64, found: "Int 2 (a list is needed)")) {
            try model.fetchRequestFromTemplate(withName: "search", substitutionVariables: ["range": 2, "prefix": "x"])
        }
        #expect(throws: KuraError.self) {
            try model.fetchRequestFromTemplate(withName: "search", substitutionVariables: ["range": ["a", "b"], "prefix": "x"])
        }
        #expect(model.templateVariables(forName: "search") == [
            TemplateVariable(name: "prefix", key: "title", type: .string, isList: false),
            TemplateVariable(name: "range", key: "sortOrder", type: .int64, isList: true),
        ])
    }

    @Test func templatesCantChangeOnceAStoreUsesTheModel() throws {
        let store = try TestStore()
        let model = try Self.model()
        _ = try store.open(model)
        #expect(throws: KuraError.self) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "News"), forName: "late")
        }
    }

    @Test func theStoreKeepsTheTemplatesForToolsWithoutTheAppsCode() throws {
        let store = try TestStore(engine: .lmdb)
        do {
            let container = try store.open(Self.model())
            let context = container.newContext()
            let news = News(context: context)
            news.objectId = "kept"
            try context.save()
            container.close()
        }
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: store.path, options: options)
        let model = container.model
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["allNews", "getNews", "search"])
        let request = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "kept"])
        let found = try container.newContext().fetch(request)
        #expect(try found.map { try $0.value(forKey: "objectId") } == [.string("kept")])
    }

    @Test func reopeningWithNewTemplatesUpdatesTheStoredOnes() throws {
        let store = try TestStore(engine: .lmdb)
        try store.open(.news()).close()
        try store.open(Self.model()).close()
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: store.path, options: options)
        #expect(container.model.fetchRequestTemplatesByName.count == 3)
    }
}
