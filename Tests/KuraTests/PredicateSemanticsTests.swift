import Foundation
import Kura
import KuraTestSupport
import Testing

/// NSPredicate's meaning where Kura once differed: variables inside lists,
/// a value on the left of an attribute, options between two constants,
/// `%K` key paths, empty search strings, and the decisions about `nil`
/// ordering, `LIKE nil`, unused arguments, `[n]` and booleans.
///
/// Each predicate is checked three ways, which must agree: on stored
/// objects with indexes, on stored objects without them, and on the same
/// objects unsaved in a context.
@Suite struct PredicateSemanticsTests {
    final class Range: ManagedObject {
        @Attribute var name: String?
        @Attribute(.indexed) var low: Int = 0
        @Attribute(.indexed) var high: Int = 0
        @Attribute(.indexed) var sortOrder: Int = 0
        @Attribute var flag: Bool = false
        @Attribute var ratio: Double?
    }

    static let rows: [(name: String?, low: Int, high: Int, sortOrder: Int, flag: Bool)] = [
        ("Realm", 1, 5, 1, true), ("Amazon", 4, 9, 2, false), ("Rea", 6, 8, 3, true), ("", 2, 3, 4, false),
        (nil, 7, 7, 5, true), ("Äpfel", 0, 10, 6, false),
    ]

    /// The names of the rows `format` matches, found in the three ways.
    func names(_ format: String, _ arguments: Any?..., substituting variables: [String: Any]? = nil) throws -> Set<String> {
        let store = try TestStore()
        let model = try ManagedObjectModel(Range.self)
        if let variables {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "Range", predicate: try FetchPredicate(format: format)), forName: "t")
            _ = variables
        }
        let container = try store.open(model)
        let saved = container.newContext()
        for row in Self.rows {
            let range = Range(context: saved)
            range.name = row.name
            range.low = row.low
            range.high = row.high
            range.sortOrder = row.sortOrder
            range.flag = row.flag
        }
        try saved.save()
        let unsaved = container.newContext()
        for row in Self.rows {
            let range = Range(context: unsaved)
            range.name = row.name
            range.low = row.low
            range.high = row.high
            range.sortOrder = row.sortOrder
            range.flag = row.flag
        }
        func request() throws -> FetchRequest<ManagedObject> {
            if let variables { return try model.fetchRequestFromTemplate(withName: "t", substitutionVariables: variables) }
            return FetchRequest(entityName: "Range", predicate: try FetchPredicate(format: format, argumentArray: arguments))
        }
        func label(_ object: ManagedObject) throws -> String { try object.value(forKey: "name", as: String?.self) ?? "nil" }
        let indexed = Set(try container.newContext().fetch(try request()).map(label))
        var plain = try request()
        plain.allowsIndexes = false
        let scanned = Set(try container.newContext().fetch(plain).map(label))
        let pending = Set(try unsaved.fetch(try request()).filter(\.isInserted).map(label))
        #expect(indexed == scanned, "\(format): index \(indexed), scan \(scanned)")
        #expect(indexed == pending, "\(format): saved \(indexed), unsaved \(pending)")
        return indexed
    }

    @Test func variablesInsideListsAreSubstituted() throws {
        #expect(try names("sortOrder BETWEEN {$low, $high}", substituting: ["low": 2, "high": 4]) == ["Amazon", "Rea", ""])
        #expect(try names("sortOrder BETWEEN {2, $high}", substituting: ["high": 3]) == ["Amazon", "Rea"])
        #expect(try names("sortOrder IN {$a, $b}", substituting: ["a": 1, "b": 6]) == ["Realm", "Äpfel"])
        let template = try FetchPredicate(format: "sortOrder BETWEEN {$low, $high}")
        #expect(try template.withSubstitutionVariables(["low": 2, "high": 4]).predicateFormat == "sortOrder BETWEEN {2, 4}")
    }

    @Test func aValueOnTheLeftOfAnAttributeIsEvaluatedAsNSPredicateDoes() throws {
        #expect(try names("'Realm' CONTAINS name") == ["Realm", "Rea"])
        #expect(try names("'Amazon Prime' BEGINSWITH name") == ["Amazon"])
        #expect(try names("'Realm' ENDSWITH[c] name") == ["Realm"])
        #expect(try names("'Realms' LIKE name") == [])
        #expect(try names("7 BETWEEN {low, high}") == ["Amazon", "Rea", "nil", "Äpfel"])
        #expect(try names("5 IN {low, high}") == ["Realm"])
        #expect(try names("'Re' IN name") == ["Realm", "Rea"])            // a string on the right is searched
        #expect(try names("name IN 'the Realm of Amazon'") == ["Realm", "Amazon", "Rea"])
        #expect(throws: KuraError.self) { try names("5 CONTAINS name") }
    }

    @Test func optionsApplyWhenBothSidesAreConstants() throws {
        let all: Set<String> = ["Realm", "Amazon", "Rea", "", "nil", "Äpfel"]
        for format in ["'Hello' BEGINSWITH[cd] 'he'", "'Hello' ENDSWITH[c] 'LO'", "'Héllo' CONTAINS[d] 'ell'",
                       "'Hello' LIKE[c] 'h*O'", "'Hello' ==[c] 'hello'", "'Héllo' MATCHES[cd] 'hel+o'"] {
            #expect(try names(format) == all, "\(format)")
        }
        #expect(try names("'Hello' BEGINSWITH 'he'").isEmpty)
    }

    @Test func emptySearchStringsNeverMatch() throws {
        for format in ["name BEGINSWITH ''", "name ENDSWITH ''", "name CONTAINS ''", "name CONTAINS[cd] ''"] {
            #expect(try names(format).isEmpty, "\(format)")
        }
        #expect(try names("name BEGINSWITH $p", substituting: ["p": ""]).isEmpty)
        #expect(try names("'Realm' CONTAINS name") == ["Realm", "Rea"], "an empty name is not part of 'Realm'")
        #expect(try names("NOT name BEGINSWITH ''").count == 6)
        #expect(try names("name LIKE ''") == [""])
    }

    @Test func percentKTakesKeysAndKeyPathsAndRefusesOtherTextWithThePosition() throws {
        #expect(try FetchPredicate(format: "%K == %@", "owner.name", "Ann").predicateFormat == "owner.name == \"Ann\"")
        #expect(try FetchPredicate(format: "%K > 2", "tags.@count").predicateFormat == "tags.@count > 2")
        #expect(throws: PredicateSyntaxError(
            format: "%K == 1", position: 0, message: "%K is 'two words', which is not a key (letters, digits and _)")) {
            try FetchPredicate(format: "%K == 1", "two words")
        }
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(format: "%K == 1", "a..b") }
        #expect(try FetchPredicate(format: "%K == 1", "sortOrder").predicateFormat == "sortOrder == 1")
    }

    /// The decisions the predicate article records.
    @Test func nilOrderingLikeNilUnusedArgumentsTheNOptionAndBooleansAreAsDocumented() throws {
        // `<=`/`>=` with nil are false on either side (SQL's rule, as Core Data's SQLite store).
        #expect(try names("name <= nil").isEmpty && names("name >= nil").isEmpty && names("nil >= name").isEmpty)
        #expect(try names("name == nil") == ["nil"])
        // LIKE nil matches nothing, nil included.
        #expect(try names("name LIKE nil").isEmpty)
        // Unused format arguments are an error.
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(format: "sortOrder == %@", 1, 2) }
        // [n] is kept and formatted back; it changes nothing.
        let normalized = try FetchPredicate(format: "name ==[n] 'Rea'")
        #expect(normalized.predicateFormat == "name ==[n] \"Rea\"")
        #expect(try FetchPredicate(format: normalized.predicateFormat) == normalized)
        #expect(try names("name ==[cn] 'rea'") == ["Rea"])
        // Booleans format as TRUE/FALSE; Apple's `flag == 1` reads the same.
        #expect(try FetchPredicate(format: "flag == %@", true).predicateFormat == "flag == TRUE")
        #expect(try names("flag == 1") == names("flag == TRUE"))
    }
}

/// One rule for every string operator: whole characters (grapheme
/// clusters, by canonical equivalence), as Swift compares them; found by
/// the outside suite, where CONTAINS matched a scalar inside a family emoji
/// and BEGINSWITH didn't.
@Suite struct StringOperatorCharacterTests {
    final class Line: ManagedObject {
        @Attribute(.indexed) var text: String = ""
    }

    static let texts = ["👨‍👩‍👧 home", "x👨‍👩‍👧", "café", "cafe\u{301}s", "a\r\nb", "ab", "résumé", "🇯🇵 flag"]
    static let parts = ["👨", "👩", "👧", "👨‍👩‍👧", "e", "é", "\r", "\n", "\r\n", "a", "b", "🇯", "🇯🇵", "s"]

    /// What each operator means, on Swift's characters.
    static func expected(_ operation: String, _ text: String, _ part: String) -> Bool {
        let characters = Array(text)
        let pattern = Array(part)
        switch operation {
        case "BEGINSWITH": return characters.starts(with: pattern)
        case "ENDSWITH": return characters.reversed().starts(with: pattern.reversed())
        case "LIKE": return characters == pattern
        default: return characters.firstRange(of: pattern) != nil  // CONTAINS, and IN with a string on the right
        }
    }

    @Test func everyStringOperatorComparesWholeCharactersSavedUnsavedIndexedOrNot() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Line.self))
        let saved = container.newContext()
        for text in Self.texts { Line(context: saved).text = text }
        try saved.save()
        let unsaved = container.newContext()
        for text in Self.texts { Line(context: unsaved).text = text }
        for operation in ["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "IN"] {
            for part in Self.parts {
                let predicate = operation == "IN"
                    ? try FetchPredicate(format: "%@ IN text", part)
                    : try FetchPredicate(format: "text \(operation) %@", part)
                let request = FetchRequest(entityName: "Line", predicate: predicate)
                var scan = request
                scan.allowsIndexes = false
                let want = Set(Self.texts.filter { Self.expected(operation, $0, part) })
                let indexed = Set(try saved.fetch(request, as: Line.self).map(\.text))
                let scanned = Set(try container.newContext().fetch(scan, as: Line.self).map(\.text))
                let pending = Set(try unsaved.fetch(request, as: Line.self).filter(\.isInserted).map(\.text))
                #expect(indexed == want && scanned == want && pending == want,
                        "\(predicate.predicateFormat): want \(want), indexed \(indexed), scanned \(scanned), unsaved \(pending)")
            }
        }
    }
}
