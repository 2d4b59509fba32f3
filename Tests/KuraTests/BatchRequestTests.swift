import Foundation
import Kura
@testable import KuraCore
import Testing

final class Vault: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \Valuable.vault, deleteRule: .deny) var valuables: Set<Valuable>
}

final class Valuable: ManagedObject {
    @Attribute var name: String = ""
    @Relationship var vault: Vault?
}

/// Batch requests checked against the same work done through objects: two
/// stores filled alike, one changed by a batch, one by a context's objects,
/// must end with the same objects, values and relationships, both consistent.
@Suite struct BatchRequestTests {
    /// A store of the blog fixture: 4 authors, 24 posts with tags and
    /// ordered comments.
    static func blog(_ store: EngineStore, options: StoreOptions = StoreOptions()) throws -> PersistentContainer {
        let container = try store.open(.blog(), options: options)
        let context = container.newContext()
        let tags = (0..<5).map { number in
            let tag = Tag(context: context)
            tag.name = "tag\(number)"
            return tag
        }
        for number in 0..<4 {
            let author = Author(context: context)
            author.name = "author\(number)"
            for postNumber in 0..<6 {
                let post = Post(context: context)
                post.title = "post \(number).\(postNumber)"
                post.score = (number * 6 + postNumber) % 10
                post.author = author
                post.tags = Set(tags.filter { ($0.name.last!.wholeNumberValue! + postNumber) % 3 == 0 })
                post.comments = (0..<4).map { commentNumber in
                    let comment = Comment(context: context)
                    comment.text = "comment \(commentNumber) on \(post.title)"
                    comment.score = (postNumber + commentNumber) % 5
                    return comment
                }
            }
        }
        try context.save()
        return container
    }

    /// Every object of every entity as its dictionary of properties (to-many
    /// members sorted unless ordered), by ID: what two stores must agree on.
    static func contents(_ container: PersistentContainer) throws -> [String: [[String: PropertyValue]]] {
        let context = container.newContext()
        var contents: [String: [[String: PropertyValue]]] = [:]
        for entity in container.model.entities where !entity.isAbstract {
            var request = FetchRequest(entityName: entity.name, sortDescriptors: [])
            request.includesSubentities = false
            var rows = try context.fetchDictionaries(request)
            for index in rows.indices {
                for link in entity.relationships where link.isToMany && !link.isOrdered {
                    if case .toMany(let ids)? = rows[index][link.name] {
                        rows[index][link.name] = .toMany(ids.sorted { $0.uriRepresentation < $1.uriRepresentation })
                    }
                }
            }
            let ids = try context.fetchObjectIDs(request).map(\.uriRepresentation)
            contents[entity.name] = zip(ids, rows).sorted { $0.0 < $1.0 }.map { id, row in
                var row = row
                row["SELF"] = .attribute(.string(id))
                return row
            }
        }
        return contents
    }

    /// Fills two stores with `fill`, changes one with `batch` and the other
    /// with `objects`, and expects them alike and consistent.
    static func expectSameAsObjects(
        fill: (EngineStore) throws -> PersistentContainer,
        batch: (ManagedObjectContext) throws -> BatchResult,
        objects: (ManagedObjectContext) throws -> Void,
        function: String = #function
    ) throws -> BatchResult {
        let batchStore = try EngineStore(.underTest, function: function + "-batch")
        let objectStore = try EngineStore(.underTest, function: function + "-objects")
        defer { withExtendedLifetime((batchStore, objectStore)) {} }
        let batched = try fill(batchStore)
        let byObjects = try fill(objectStore)
        let result = try batch(batched.newContext())
        let context = byObjects.newContext()
        try objects(context)
        try context.save()
        #expect(try contents(batched) == contents(byObjects))
        let report = try batched.store.check()
        #expect(report.isConsistent, "\(report)")
        return result
    }

    @Test func aBatchDeleteCascadesAndNullifiesAsDeletingTheObjectsDoes() throws {
        // Posts: cascade to ordered comments, many-to-many tags nullified, the author's to-many.
        let posts = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchDeleteRequest(FetchRequest<Post>(predicate: \.score >= 5)))
        }, objects: { context in
            for post in try context.fetch(FetchRequest<Post>(predicate: \.score >= 5)) { context.delete(post) }
        })
        #expect(posts.count == 10 + 10 * 4, "the posts and their comments")
        // Comments: each leaves its post's ordered list.
        let comments = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchDeleteRequest(FetchRequest<Comment>(predicate: \.score < 2)))
        }, objects: { context in
            for comment in try context.fetch(FetchRequest<Comment>(predicate: \.score < 2)) { context.delete(comment) }
        })
        #expect(comments.count > 0 && comments.changes.updatedObjectIDs.allSatisfy { $0.entity.name == "Post" })
        // An author: its posts, their comments.
        _ = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchDeleteRequest(FetchRequest<Author>(predicate: \.name == "author1")))
        }, objects: { context in
            for author in try context.fetch(FetchRequest<Author>(predicate: \.name == "author1")) { context.delete(author) }
        })
    }

    @Test func aBatchDeleteOfASuperentityClearsReferencesWithoutInverse() throws {
        func fill(_ store: EngineStore) throws -> PersistentContainer {
            let container = try store.open(.library())
            let context = container.newContext()
            let racks = (0..<3).map { number in
                let rack = Rack(context: context)
                rack.name = "rack \(number)"
                return rack
            }
            var videos: [Video] = []
            for number in 0..<30 {
                let medium: Medium = switch number % 3 {
                case 0: Video(context: context)
                case 1: Clip(context: context)
                default: Track(context: context)
                }
                medium.code = "m\(number)"
                medium.rank = number
                medium.rack = racks[number % 3]
                if let video = medium as? Video {
                    video.sequel = videos.last
                    videos.append(video)
                }
                let note = Note(context: context)
                note.text = "about m\(number)"
                note.subject = medium
                if number < 3 { racks[number].featured = medium }
            }
            try context.save()
            return container
        }
        let result = try Self.expectSameAsObjects(fill: fill, batch: { context in
            try context.execute(BatchDeleteRequest(FetchRequest<Medium>(predicate: \.rank < 12)))
        }, objects: { context in
            for medium in try context.fetch(FetchRequest<Medium>(predicate: \.rank < 12)) { context.delete(medium) }
        })
        #expect(result.changes.deletedObjectIDs.filter { $0.entity.name == "Note" }.count == 12, "notes cascade from their subjects")
    }

    @Test func aDenyRuleRefusesTheWholeBatch() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(ManagedObjectModel(Vault.self, Valuable.self))
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        for name in ["full", "empty"] {
            let vault = Vault(context: context)
            vault.name = name
            if name == "full" {
                let valuable = Valuable(context: context)
                valuable.name = "gold"
                valuable.vault = vault
            }
        }
        try context.save()
        #expect {
            try context.execute(BatchDeleteRequest(FetchRequest<Vault>()))
        } throws: { error in
            (error as? KuraError)?.code == .validationFailed && "\(error)".contains("valuables")
        }
        #expect(try context.count(for: FetchRequest<Vault>()) == 2, "nothing deleted")
        #expect(try context.execute(BatchDeleteRequest(FetchRequest<Vault>(predicate: \.name == "empty"))).count == 1)
        // With what it holds, it goes.
        let gold = try context.fetchObjectIDs(FetchRequest<Valuable>())
        let vaults = try context.fetchObjectIDs(FetchRequest<Vault>())
        #expect(try context.execute(BatchDeleteRequest(objectIDs: vaults + gold)).count == 2)
        #expect(try container.store.check().isConsistent)
    }

    @Test func aBatchUpdateSetsValuesAsSettingThemOnObjectsDoes() throws {
        let result = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            var request = BatchUpdateRequest(FetchRequest<Post>(predicate: \.score < 3))
            request.set(\Post.score, to: 42)
            request.propertiesToUpdate["title"] = .string("low")
            return try context.execute(request)
        }, objects: { context in
            for post in try context.fetch(FetchRequest<Post>(predicate: \.score < 3)) {
                post.score = 42
                post.title = "low"
            }
        })
        #expect(result.count == 9)
    }

    @Test func aBatchUpdateUsesAndKeepsIndexesAndRefusesBadValues() throws {
        let store = try EngineStore(.underTest)
        let container = try Self.blog(store)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        var request = BatchUpdateRequest(FetchRequest<Post>(predicate: \.score == 4))
        request.set(\Post.score, to: 100)
        #expect(try context.execute(request).count == 2)
        #expect(try context.count(for: FetchRequest<Post>(predicate: \.score == 100)) == 2)
        #expect(try context.count(for: FetchRequest<Post>(predicate: \.score == 4)) == 0)
        // A unique index broken: nothing changes.
        #expect {
            try context.execute(BatchUpdateRequest(FetchRequest<Tag>(), propertiesToUpdate: ["name": .string("same")]))
        } throws: { error in
            (error as? KuraError)?.code == .uniqueConstraintViolated
        }
        #expect(try context.count(for: FetchRequest<Tag>(predicate: \.name == "same")) == 0)
        #expect(throws: KuraError.self) {
            try context.execute(BatchUpdateRequest(FetchRequest<Post>(), propertiesToUpdate: ["score": .string("many")]))
        }
        #expect(throws: KuraError.self) {
            try context.execute(BatchUpdateRequest(FetchRequest<Post>(), propertiesToUpdate: ["author": nil]))
        }
        #expect(throws: KuraError.self) {
            try context.execute(BatchUpdateRequest(FetchRequest<Post>(), propertiesToUpdate: ["title": nil]))
        }
        #expect(try container.store.check().isConsistent)
    }

    @Test func aBatchInsertInsertsAsInsertingObjectsDoes() throws {
        let rows: [[String: AttributeValue?]] = (0..<50).map { ["name": .string("new\($0)")] }
        let result = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchInsertRequest(Tag.self, objects: rows))
        }, objects: { context in
            for number in 0..<50 {
                let tag = Tag(context: context)
                tag.name = "new\(number)"
            }
        })
        #expect(result.count == 50 && result.changes.insertedObjectIDs.count == 50)
        // Rows of values for keys named once: the same.
        _ = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchInsertRequest(Post.self, keys: ["title", "score"], rows: (0..<20).map { [.string("row \($0)"), .int(Int64($0))] }))
        }, objects: { context in
            for number in 0..<20 {
                let post = Post(context: context)
                post.title = "row \(number)"
                post.score = number
            }
        })
        // Rows filled by key path: the same, rows setting different
        // attributes in different orders (defaults for the rest).
        _ = try Self.expectSameAsObjects(fill: { try Self.blog($0) }, batch: { context in
            try context.execute(BatchInsertRequest(Post.self, count: 30) { index, row in
                if index % 3 == 0 { row.set(\.score, to: index) }
                row.set(\.title, to: "typed \(index)")
                if index % 3 == 1 { row.set("score", to: .int(Int64(index))) }
            })
        }, objects: { context in
            for number in 0..<30 {
                let post = Post(context: context)
                post.title = "typed \(number)"
                if number % 3 != 2 { post.score = number }
            }
        })
    }

    @Test func aBatchInsertChecksValuesAndUpsertsUnderAMergePolicy() throws {
        let store = try EngineStore(.underTest)
        let container = try Self.blog(store)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        // Posts have a to-one: inserted without a destination.
        let posts = try context.execute(BatchInsertRequest(Post.self, objects: [["score": .int(1)], ["title": .string("ok")]]))
        #expect(try posts.objectIDs.map { try context.existingObject(with: $0).value(forKey: "title") } == [.string(""), .string("ok")])
        let readings = try EntityDescription(name: "Reading", attributes: [
            AttributeDescription(name: "celsius", type: .double), AttributeDescription(name: "place", type: .string, isOptional: true),
        ])
        let plainStore = try EngineStore(.underTest, function: #function + "-plain")
        let plain = try plainStore.open(ManagedObjectModel(entities: [readings])).newContext()
        defer { withExtendedLifetime(plainStore) {} }
        #expect {
            try plain.execute(BatchInsertRequest(entityName: "Reading", objects: [["celsius": .int(21)], ["place": .string("Nara")]]))
        } throws: { error in
            (error as? KuraError)?.code == .validationFailed && "\(error)".contains("celsius")
        }
        #expect(try plain.count(for: FetchRequest(entityName: "Reading")) == 0)
        #expect(try plain.execute(BatchInsertRequest(entityName: "Reading", objects: [["celsius": .int(21)]])).count == 1)
        #expect(try plain.fetch(FetchRequest(entityName: "Reading"))[0].value(forKey: "celsius") == .double(21), "converted")
        #expect(throws: KuraError.self) { try context.execute(BatchInsertRequest(Tag.self, objects: [["name": .string("tag1")]])) }
        #expect(throws: KuraError.self) { try context.execute(BatchInsertRequest(Tag.self, objects: [["nom": .string("x")]])) }
        #expect(throws: KuraError.self) { try context.execute(BatchInsertRequest(Tag.self, keys: ["name"], rows: [[.string("x"), .int(1)]])) }
        #expect(throws: KuraError.self) { try context.execute(BatchInsertRequest(Tag.self, keys: ["name"], rows: [[.int(1)]])) }
        #expect(try context.count(for: FetchRequest<Tag>()) == 5, "nothing inserted")
        context.mergePolicy = .mergeByPropertyObjectTrump
        let result = try context.execute(BatchInsertRequest(Tag.self, objects: [["name": .string("tag1")], ["name": .string("tag9")]]))
        #expect(result.changes.updatedObjectIDs.count == 1 && result.changes.insertedObjectIDs.count == 1)
        #expect(try context.count(for: FetchRequest<Tag>()) == 6)
        #expect(try container.store.check().isConsistent)
    }

    @Test func changesReachThisContextOtherContextsObserversAndTheHistory() async throws {
        let store = try EngineStore(.underTest)
        var options = StoreOptions()
        options.tracksHistory = true
        let container = try Self.blog(store, options: options)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        context.transactionAuthor = "cleaner"
        let other = container.newContext()
        other.automaticallyMergesChangesFromParent = true
        let doomed = try #require(try other.first(FetchRequest<Post>(predicate: \.score == 9)))
        let kept = try #require(try context.first(FetchRequest<Post>(predicate: \.score == 0)))
        let observer = container.newContext()
        var iterator = observer.results(for: FetchRequest<Post>(predicate: \.score >= 5).untyped).makeAsyncIterator()
        #expect(try await iterator.next()?.objects.count == 10)

        var update = BatchUpdateRequest(FetchRequest<Post>(predicate: \.score == 0))
        update.set(\Post.title, to: "zero")
        try context.execute(update)
        #expect(kept.title == "zero", "this context's object is refreshed")
        let deleted = try context.execute(BatchDeleteRequest(FetchRequest<Post>(predicate: \.score >= 5)))
        #expect(try await iterator.next()?.objects.isEmpty == true)
        _ = try other.fetch(FetchRequest<Author>())  // merges what it received
        #expect(doomed.isDeleted || doomed.managedObjectContext == nil, "another context lets the deleted object go")
        let history = try container.store.history()
        let last = try #require(history.last)
        #expect(last.author == "cleaner" && last.changes.deletedObjectIDs == deleted.changes.deletedObjectIDs)
        #expect(history.dropLast().last?.changedKeys[kept.objectID]?.contains("title") == true)
        // Another context merges a result by hand.
        let late = container.newContext()
        let cached = try #require(try late.first(FetchRequest<Post>(predicate: \.score == 1)))
        var again = BatchUpdateRequest(FetchRequest<Post>(predicate: \.score == 1))
        again.set(\Post.title, to: "one")
        let changed = try context.execute(again)
        late.mergeChanges(changed.changes)
        #expect(cached.title == "one")
    }

    @Test func swiftDataStyleDeleteTakesAPredicate() throws {
        let store = try EngineStore(.underTest)
        let container = try Self.blog(store)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        try context.delete(model: Comment.self, where: #Predicate { $0.score == 4 })
        #expect(try context.count(for: FetchRequest<Comment>(predicate: \.score == 4)) == 0)
        #expect(try context.count(for: FetchRequest<Comment>()) > 0)
        #expect(try container.store.check().isConsistent)
    }
}
