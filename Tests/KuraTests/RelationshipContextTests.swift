import Foundation
import Kura
import KuraTestSupport
import Testing

/// Relationship changes as changes: delete rules, validation, rollback,
/// refresh, conflicts, hooks, errors, and models without classes.
@Suite struct RelationshipContextTests {
    func blog() throws -> (TestStore, PersistentContainer) {
        let store = try TestStore()
        return (store, try store.open(.blog()))
    }

    @Test func cascadeDeletesTheGraphBelowAndNullifyTakesObjectsOutOfInverses() throws {
        let (_, container) = try blog()
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let swift = Tag(context: context)
        swift.name = "swift"
        for index in 0..<3 {
            let post = Post(context: context)
            post.title = "p\(index)"
            post.author = ann
            post.tags = [swift]
            let comment = Comment(context: context)
            comment.text = "c\(index)"
            post.comments = [comment]
        }
        try context.save()

        let reader = container.newContext()
        let storedAnn = try #require(try Author.findFirst(by: "name", value: "Ann", in: reader))
        reader.delete(storedAnn)
        #expect(reader.deletedObjects.count == 1 + 3 + 3, "the author, her posts and their comments")
        let storedSwift = try #require(try Tag.findFirst(by: "name", value: "swift", in: reader))
        #expect(storedSwift.posts.isEmpty, "nullify took the deleted posts out of the tag")
        #expect(reader.updatedObjects.contains(storedSwift))
        try reader.save()

        let after = container.newContext()
        #expect(try after.count(for: FetchRequest(entityName: "Post")) == 0)
        #expect(try after.count(for: FetchRequest(entityName: "Comment")) == 0)
        #expect(try Tag.findFirst(by: "name", value: "swift", in: after)?.posts.isEmpty == true)
        #expect(try container.store.check().isConsistent)
    }

    /// A model without classes: Folder.files (to-many, `rule`) and its
    /// inverse File.folder; one folder holding one file, saved.
    func folderHoldingAFile(deleteRule rule: RelationshipDescription.DeleteRule)
        throws -> (TestStore, PersistentContainer, ManagedObjectContext, folder: ManagedObject, file: ManagedObject) {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Folder", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("files", destination: "File", inverse: "folder", deleteRule: rule)]),
            EntityDescription(name: "File", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toOne("folder", destination: "Folder")]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        let folder = try context.insertNewObject(forEntityName: "Folder")
        try folder.setValue("docs", forKey: "name")
        let file = try context.insertNewObject(forEntityName: "File")
        try file.setValue("a.txt", forKey: "name")
        try file.setObject(folder, forKey: "folder")
        try context.save()
        return (store, container, context, folder, file)
    }

    @Test func aDenyRuleFailsTheSaveNamingTheObjectsAndWritesNothing() throws {
        let (_, container, context, folder, file) = try folderHoldingAFile(deleteRule: .deny)
        context.delete(folder)
        do {
            try context.save()
            Issue.record("the deny rule let the folder go")
        } catch let error as KuraError where error.code == .validationFailed {
            let failures = error.validationFailures
            #expect(failures.count == 1)
            #expect(failures[0].key == "files")
            #expect(failures[0].message.contains(file.objectID.description))
        }
        #expect(context.deletedObjects == [folder], "the failed save kept the deletion")
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Folder")) == 1)
        context.delete(file)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Folder")) == 0)
        #expect(try container.store.check().isConsistent)
    }

    /// A no-action delete rule leaves references to the deleted object; they
    /// read as nothing everywhere (the outside graph suite found the
    /// predicate saying nil while the object said otherwise), and `check`
    /// counts them apart.
    @Test func aReferenceANoActionRuleLeftReadsAsNothingEverywhere() throws {
        let (_, container, context, folder, file) = try folderHoldingAFile(deleteRule: .noAction)
        let other = try context.insertNewObject(forEntityName: "File")
        try other.setValue("b.txt", forKey: "name")
        try other.setObject(folder, forKey: "folder")
        try context.save()
        context.delete(folder)
        // Deleted in the context, not yet saved: one answer already.
        #expect(try file.object(forKey: "folder") == nil)
        #expect(try context.count(for: FetchRequest(entityName: "File", predicate: "folder == nil")) == 2)
        try context.save()
        #expect(try file.object(forKey: "folder") == nil)

        let reader = container.newContext()
        let stored = try reader.fetch(FetchRequest(entityName: "File", predicate: "folder == nil").sorted(by: "name"))
        #expect(try stored.map { try $0.value(forKey: "name") } == [.string("a.txt"), .string("b.txt")])
        #expect(try stored.allSatisfy { try $0.object(forKey: "folder") == nil })
        #expect(try reader.count(for: FetchRequest(entityName: "File", predicate: "folder != nil")) == 0)
        var request = FetchRequest(entityName: "File")
        request.propertiesToFetch = ["name", "folder", "folder.name"]
        let rows = try reader.fetchDictionaries(request)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0["folder"] == .toOne(nil) && $0["folder.name"] == .attribute(nil) }, "\(rows)")
        let report = try container.store.check()
        #expect(report.isConsistent)
        #expect(report.entities.first { $0.entity == "File" }?.danglingReferences == 2)
    }

    @Test func aToManyANoActionRuleLeftHoldsOnlyObjectsThatExist() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("players", destination: "Player", inverse: "teams")]),
            EntityDescription(name: "Player", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("teams", destination: "Team", inverse: "players", deleteRule: .noAction)]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        let team = try context.insertNewObject(forEntityName: "Team")
        try team.setValue("reds", forKey: "name")
        let players = try (0..<3).map { number in
            let player = try context.insertNewObject(forEntityName: "Player")
            try player.setValue("p\(number)", forKey: "name")
            try team.mutableSetValue(forKey: "players").insert(player)
            return player
        }
        try context.save()
        context.delete(players[1])
        try context.save()
        let reader = container.newContext()
        let stored = try #require(try reader.fetch(FetchRequest(entityName: "Team")).first)
        #expect(try stored.objects(forKey: "players").count == 2)
        #expect(try stored.mutableSetValue(forKey: "players").count == 2)
        #expect(try reader.count(for: FetchRequest(entityName: "Team", predicate: "players.@count == 2")) == 1)
    }

    @Test func requiredToOnesAndCountsAreValidatedWithTheOtherFailures() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("players", destination: "Player", inverse: "team", minimumCount: 2, maximumCount: 3)]),
            EntityDescription(name: "Player", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toOne("team", destination: "Team", isOptional: false)]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        let team = try context.insertNewObject(forEntityName: "Team")
        try team.setValue("A", forKey: "name")
        let loner = try context.insertNewObject(forEntityName: "Player")
        try loner.setValue("x", forKey: "name")
        let member = try context.insertNewObject(forEntityName: "Player")
        try member.setValue("y", forKey: "name")
        try member.setObject(team, forKey: "team")
        do {
            try context.save()
            Issue.record("an invalid graph was saved")
        } catch let error as KuraError where error.code == .validationFailed {
            let failures = error.validationFailures
            let described = failures.map(\.description).sorted()
            #expect(described.count == 2, "\(described)")
            #expect(described.contains { $0.contains("team: a required relationship has no destination") })
            #expect(described.contains { $0.contains("players: has 1 members; at least 2 are required") })
        }
        try loner.setObject(team, forKey: "team")
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Player", predicate: "team.name == 'A'")) == 2)
    }

    @Test func rollbackRestoresBothSidesAndRefreshKeepsRelationshipChanges() throws {
        let (_, container) = try blog()
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let bob = Author(context: context)
        bob.name = "Bob"
        let post = Post(context: context)
        post.author = ann
        try context.save()

        post.author = bob
        #expect(post.changedValues() == ["author": .toOne(bob.objectID)])
        #expect(try post.committedValues(forKeys: ["author"]) == ["author": .toOne(ann.objectID)])
        #expect(context.updatedObjects == [post, ann, bob])
        context.rollback()
        #expect(post.author === ann && ann.posts == [post] && bob.posts.isEmpty)
        #expect(!context.hasChanges)

        post.author = bob
        try context.refresh(post, mergeChanges: true)
        #expect(post.author === bob && post.hasChanges)
        try context.refresh(post, mergeChanges: false)
        #expect(post.author === ann)
    }

    @Test func aRelationshipOnlyChangeRunsHooksAndConflictsAreDetected() throws {
        final class Audited: ManagedObject {
            @Attribute var name: String = ""
            @Attribute var saves: Int = 0
            @Relationship(inverse: \AuditedOwner.items) var owner: AuditedOwner?
            override func willSave() {
                super.willSave()
                if !isDeleted { saves += 1 }
            }
        }
        final class AuditedOwner: ManagedObject {
            @Attribute var name: String = ""
            @Relationship var items: Set<Audited>
        }
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Audited.self, AuditedOwner.self))
        let first = container.newContext()
        let item = Audited(context: first)
        let owner = AuditedOwner(context: first)
        try first.save()
        #expect(item.saves == 1)
        item.owner = owner                       // the only change: a relationship
        #expect(item.isUpdated && owner.isUpdated)
        try first.save()
        #expect(item.saves == 2, "willSave ran for a relationship-only change")

        let second = container.newContext()
        let other = try #require(try second.fetch(FetchRequest(entityName: "Audited"), as: Audited.self).first)
        other.owner = nil
        item.owner = nil
        item.name = "changed"
        try first.save()
        #expect(throws: KuraError.conflict(objectIDs: [other.objectID])) { try second.save() }
    }

    @Test func objectsOfAnotherContextOrEntityAreClearErrors() throws {
        let (_, container) = try blog()
        let one = container.newContext()
        let two = container.newContext()
        let post = Post(context: one)
        let stranger = Author(context: two)
        #expect(throws: KuraError.objectInAnotherContext(stranger.objectID)) { try post.setObject(stranger, forKey: "author") }
        let tag = Tag(context: one)
        #expect(throws: KuraError.self) { try post.setObject(tag, forKey: "author") }
        #expect(throws: KuraError.self) { try post.mutableSetValue(forKey: "author") }
        post.author = stranger                   // typed: not changed, and the save says why
        #expect(post.author == nil)
        #expect(throws: KuraError.objectInAnotherContext(stranger.objectID)) { try one.save() }
        try one.save()                           // said once; the graph itself is fine
        let ann = Author(context: one)
        one.delete(ann)
        #expect(throws: KuraError.self) { try post.setObject(ann, forKey: "author") }
    }

    @Test func manyToManyOneToOneAndOrderedRelationshipsPersist() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toOne("passport", destination: "Passport", inverse: "holder"),
                .toMany("clubs", destination: "Club", inverse: "members"),
                .toMany("favorites", destination: "Club", isOrdered: true),      // no inverse
            ]),
            EntityDescription(name: "Passport", attributes: [AttributeDescription(name: "number", type: .string)],
                              relationships: [.toOne("holder", destination: "Person")]),
            EntityDescription(name: "Club", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("members", destination: "Person")]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        func make(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(value, forKey: key)
            return object
        }
        let ann = try make("Person", "name", "Ann")
        let bob = try make("Person", "name", "Bob")
        let passport = try make("Passport", "number", "P1")
        let chess = try make("Club", "name", "chess")
        let go = try make("Club", "name", "go")
        try ann.setObject(passport, forKey: "passport")
        try bob.setObject(passport, forKey: "passport")          // one-to-one: Ann lets go of it
        #expect(try ann.object(forKey: "passport") == nil && passport.object(forKey: "holder") === bob)
        try ann.mutableSetValue(forKey: "clubs").set([chess, go])
        try bob.mutableSetValue(forKey: "clubs").insert(chess)
        #expect(try chess.objects(forKey: "members").count == 2)
        let favorites = try ann.mutableSetValue(forKey: "favorites")
        try favorites.insert(chess)
        try favorites.insert(go, at: 0)
        try context.save()

        let reader = container.newContext()
        let people = try reader.fetch(FetchRequest(entityName: "Person").sorted(by: "name"))
        #expect(try people[0].objects(forKey: "favorites").map { try $0.value(forKey: "name", as: String.self) } == ["go", "chess"])
        #expect(try people[1].object(forKey: "passport")?.value(forKey: "number", as: String.self) == "P1")
        let storedChess = try #require(try reader.fetch(FetchRequest(entityName: "Club", predicate: "name == 'chess'")).first)
        #expect(try Set(storedChess.objects(forKey: "members").map { try $0.value(forKey: "name", as: String.self) }) == ["Ann", "Bob"])
        // Deleting a club with no inverse on favorites: Ann's list lets go of it.
        reader.delete(storedChess)
        #expect(try people[0].objects(forKey: "favorites").count == 1)
        try reader.save()
        #expect(try container.store.check().isConsistent)
        let last = container.newContext()
        let moved = try last.fetch(FetchRequest(entityName: "Person", predicate: "name == 'Ann'")).first
        #expect(try moved?.objects(forKey: "favorites").map { try $0.value(forKey: "name", as: String.self) } == ["go"])
    }

    /// Found by the outside graph suite: a stored object added after new
    /// ones (through its inverse, the members unread) was put first.
    @Test func anOrderedToManyKeepsTheOrderObjectsWereAddedIn() throws {
        let (_, container) = try blog()
        let context = container.newContext()
        let stored = Post(context: context)
        stored.title = "stored"
        let lonely = Comment(context: context)
        lonely.text = "d"
        let (a, b, c) = (Comment(context: context), Comment(context: context), Comment(context: context))
        (a.text, b.text, c.text) = ("a", "b", "c")
        stored.comments = [a, b, c]
        let e = Comment(context: context)
        e.text = "e"
        try context.save()

        // A new post: a new comment, then a stored one through its inverse.
        let reader = container.newContext()
        let p = Post(context: reader)
        p.title = "p"
        let n1 = Comment(context: reader)
        n1.text = "n1"
        try p.$comments.insert(n1)
        let d = try #require(try reader.fetch(FetchRequest(entityName: "Comment", predicate: "text == 'd'"), as: Comment.self).first)
        d.post = p
        #expect(p.comments.map(\.text) == ["n1", "d"])
        // A stored post whose members were never read: a new one, then a stored one.
        let post = try #require(try reader.fetch(FetchRequest(entityName: "Post", predicate: "title == 'stored'"), as: Post.self).first)
        let x = Comment(context: reader)
        x.text = "x"
        try post.$comments.insert(x)
        let storedE = try #require(try reader.fetch(FetchRequest(entityName: "Comment", predicate: "text == 'e'"), as: Comment.self).first)
        storedE.post = post
        // Removed and added again: at the end.
        let storedA = try #require(post.comments.first)
        try post.$comments.remove(storedA)
        try post.$comments.insert(storedA)
        #expect(post.comments.map(\.text) == ["b", "c", "x", "e", "a"])
        try reader.save()

        let again = container.newContext()
        let posts = try again.fetch(FetchRequest(entityName: "Post").sorted(by: "title"), as: Post.self)
        #expect(posts.map { $0.comments.map(\.text) } == [["n1", "d"], ["b", "c", "x", "e", "a"]])
    }

    @Test func readingAToManyMakesFaultsNotRecords() throws {
        let (_, container) = try blog()
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        for index in 0..<50 {
            let post = Post(context: context)
            post.title = "p\(index)"
            post.author = ann
        }
        try context.save()
        let reader = container.newContext()
        let storedAnn = try #require(try Author.findFirst(by: "name", value: "Ann", in: reader))
        let posts = storedAnn.posts
        #expect(posts.count == 50)
        #expect(posts.allSatisfy { $0.isFault }, "members are faults until read")
        #expect(reader.registeredObjects.count == 51)
        #expect(posts.first!.title.hasPrefix("p"))
        #expect(!posts.first!.isFault)
    }
}

@Suite struct RelationshipResultTests {
    @Test func dictionaryResultsHoldKeyPathsRelationshipsAndAggregates() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let objects = RelationshipPredicateTests.build(in: context)
        try context.save()
        var request = FetchRequest(entityName: "Post", predicate: "title == 'a1' OR title == 'orphan'").sorted(by: "title")
        request.propertiesToFetch = ["title", "author", "author.name", "tags.@count", "comments.@sum.score", "comments"]
        let rows = try container.newContext().fetchDictionaries(request)
        #expect(rows.count == 2)
        #expect(rows[0]["title"] == .attribute(.string("a1")))
        #expect(rows[0]["author"] == .toOne(objects["Ann"]!.objectID))
        #expect(rows[0]["author.name"] == .attribute(.string("Ann")))
        #expect(rows[0]["tags.@count"] == .attribute(.int(2)))
        #expect(rows[0]["comments.@sum.score"] == .attribute(.int(6)))
        if case .toMany(let comments)? = rows[0]["comments"] { #expect(comments.count == 2) } else { Issue.record("no comments") }
        #expect(rows[1]["author"] == .toOne(nil) && rows[1]["author.name"] == .attribute(nil))
        request.propertiesToFetch = ["tags.name"]
        #expect(throws: KuraError.self) { try context.fetchDictionaries(request) }
    }

    @Test func prefetchingLoadsDestinationsInOnePass() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        _ = RelationshipPredicateTests.build(in: context)
        try context.save()
        let reader = container.newContext()
        var request = Post.fetchRequest()
        request.relationshipKeyPathsForPrefetching = ["author", "tags", "comments"]
        let posts = try reader.fetch(request, as: Post.self)
        #expect(posts.count == 4)
        // Everything reached is loaded: no object of the context is a fault.
        #expect(reader.registeredObjects.allSatisfy { !$0.isFault })
        #expect(posts.first { $0.title == "a1" }?.author?.name == "Ann")
        request.relationshipKeyPathsForPrefetching = ["nope"]
        #expect(throws: KuraError.self) { try reader.fetch(request) }
    }
}

@Suite struct RelationshipProjectionTests {
    @Test func theProjectionCountsStoredMembersWithoutMakingObjectsAndSeesUnsavedChanges() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        for index in 0..<40 {
            let post = Post(context: context)
            post.title = "p\(index)"
            post.author = ann
        }
        #expect(try ann.$posts.count == 40, "unsaved members count")
        try context.save()

        let reader = container.newContext()
        let storedAnn = try #require(try Author.findFirst(by: "name", value: "Ann", in: reader))
        #expect(try storedAnn.$posts.count == 40)
        #expect(reader.registeredObjects.count == 1, "counting made no object per member")

        // Unsaved changes on either side are counted.
        let extra = Post(context: reader)
        extra.author = storedAnn
        #expect(try storedAnn.$posts.count == 41)
        let first = try #require(try reader.fetch(Post.fetchRequest(), as: Post.self).first { $0.title == "p0" })
        first.author = nil
        #expect(try storedAnn.$posts.count == 40)
        reader.delete(try #require(try reader.fetch(Post.fetchRequest(), as: Post.self).first { $0.title == "p1" }))
        #expect(try storedAnn.$posts.count == 39)
        #expect(storedAnn.posts.count == 39, "the set agrees with the count")
        reader.rollback()
        #expect(try storedAnn.$posts.count == 40)

        // A to-one projection counts 0 or 1 and refuses to-many changes with an error.
        #expect(try first.$author.count == 1)
        #expect(try first.$author.objects.first === storedAnn)
        #expect(throws: KuraError.self) { try first.$author.insert(storedAnn) }
        #expect(throws: KuraError.self) { try storedAnn.$posts.insert(first, at: 0) }
    }

    @Test func changesThroughTheProjectionKeepTheInverseRight() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let bob = Author(context: context)
        bob.name = "Bob"
        let post = Post(context: context)
        try ann.$posts.insert(post)
        #expect(post.author === ann)
        try bob.$posts.insert(post)
        #expect(post.author === bob && ann.posts.isEmpty)
        try bob.$posts.remove(post)
        #expect(post.author == nil && bob.posts.isEmpty)
        let comments = (0..<3).map { index -> Comment in
            let comment = Comment(context: context)
            comment.text = "c\(index)"
            return comment
        }
        try post.$comments.set(comments)
        try post.$comments.insert(comments[2], at: 0)
        #expect(post.comments.map(\.text) == ["c2", "c0", "c1"])
        #expect(comments.allSatisfy { $0.post === post })
        try context.save()
        let reader = container.newContext()
        let stored = try #require(try reader.fetch(Post.fetchRequest(), as: Post.self).first)
        #expect(stored.comments.map(\.text) == ["c2", "c0", "c1"])
        #expect(try container.store.check().isConsistent)
    }

    @Test func relationshipsOfAnObjectWhoseContextWentAwayAreAnErrorThroughTheThrowingAPI() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        Post(context: context).author = ann
        try context.save()
        var reader: ManagedObjectContext? = container.newContext()
        let storedAnn = try #require(try Author.findFirst(by: "name", value: "Ann", in: reader!))
        #expect(try storedAnn.$posts.count == 1)
        reader = nil
        #expect(throws: KuraError.objectDetached(storedAnn.objectID)) { try storedAnn.$posts.count }
        #expect(throws: KuraError.objectDetached(storedAnn.objectID)) { try storedAnn.objects(forKey: "posts") }
    }
}

extension RelationshipContextTests {
    /// Core Data's `objectIDs(forRelationshipNamed:)`: stored and unchanged,
    /// the IDs come without an object or a fault for each member; changed,
    /// they follow the context's objects.
    @Test func objectIDsOfARelationshipComeWithoutObjectsAndFollowChanges() throws {
        let (_, container) = try blog()
        let writer = container.newContext()
        let ann = Author(context: writer)
        ann.name = "Ann"
        var posts: [Post] = []
        for index in 0..<5 {
            let post = Post(context: writer)
            post.title = "p\(index)"
            post.author = ann
            posts.append(post)
        }
        let lone = Post(context: writer)
        lone.title = "lone"
        try writer.save()

        let reader = container.newContext()
        let storedAnn = try #require(try Author.findFirst(by: \.name, value: "Ann", in: reader))
        let before = reader.registeredObjects.count
        let ids = try storedAnn.objectIDs(forRelationshipNamed: "posts")
        #expect(Set(ids) == Set(posts.map(\.objectID)) && ids.count == 5)
        #expect(reader.registeredObjects.count == before, "no object made for a member")
        let storedPost = try reader.existingObject(with: posts[0].objectID, as: Post.self)
        #expect(try storedPost.objectIDs(forRelationshipNamed: "author") == [ann.objectID])
        #expect(try storedPost.objectIDs(for: \.author) == [ann.objectID], "typed by key path")
        #expect(Set(try storedAnn.objectIDs(for: \.posts)) == Set(ids))
        let storedLone = try reader.existingObject(with: lone.objectID, as: Post.self)
        #expect(try storedLone.objectIDs(forRelationshipNamed: "author").isEmpty)

        // Unsaved changes: the IDs follow the objects.
        storedLone.author = storedAnn
        #expect(try storedLone.objectIDs(forRelationshipNamed: "author") == [ann.objectID])
        #expect(Set(try storedAnn.objectIDs(forRelationshipNamed: "posts")) == Set((posts + [lone]).map(\.objectID)))
        storedPost.author = nil
        #expect(try storedPost.objectIDs(forRelationshipNamed: "author").isEmpty)
        #expect(try storedAnn.objectIDs(forRelationshipNamed: "posts").count == 5)
        #expect(throws: KuraError.self) { try storedAnn.objectIDs(forRelationshipNamed: "nope") }
    }

    /// The batched form gives, object by object, what each object's own
    /// `objectIDs(forRelationshipNamed:)` gives: stored members read in one
    /// read of the store, changed relationships from the objects.
    @Test func objectIDsOfManyObjectsAreEachObjectsOwn() throws {
        let (_, container) = try blog()
        let writer = container.newContext()
        var authors: [Author] = []
        for index in 0..<4 {
            let author = Author(context: writer)
            author.name = "a\(index)"
            for number in 0..<index {
                let post = Post(context: writer)
                post.title = "a\(index)p\(number)"
                post.author = author
            }
            authors.append(author)
        }
        try writer.save()

        let reader = container.newContext()
        let stored = try reader.fetch(FetchRequest<Author>(sortBy: [FetchSortDescriptor(key: "name")]))
        let posts = try reader.fetch(FetchRequest<Post>())
        // A change the store doesn't hold yet: a2's first post moves to a0.
        let moved = try #require(posts.first { $0.title == "a2p0" })
        moved.author = stored[0]
        let registered = reader.registeredObjects.count

        let memberIDs = try reader.objectIDs(forRelationshipNamed: "posts", of: stored)
        #expect(memberIDs.map(\.count) == [1, 1, 1, 3])
        for (author, ids) in zip(stored, memberIDs) {
            #expect(Set(ids) == Set(try author.objectIDs(forRelationshipNamed: "posts")), "\(author.name)")
        }
        #expect(memberIDs[0] == [moved.objectID])
        #expect(try reader.objectIDs(for: \Author.posts, of: stored) == memberIDs, "typed by key path")
        #expect(try reader.objectIDs(forRelationshipNamed: "author", of: posts) == posts.map { [try #require($0.author).objectID] })
        #expect(reader.registeredObjects.count == registered, "no object made for a member")
        #expect(try reader.objectIDs(forRelationshipNamed: "posts", of: []).isEmpty)

        #expect(throws: KuraError.unknownAttribute(entity: "Author", key: "nope")) {
            try reader.objectIDs(forRelationshipNamed: "nope", of: stored)
        }
        let other = container.newContext()
        let elsewhere = try other.fetch(FetchRequest<Author>())
        #expect(throws: KuraError.objectInAnotherContext(elsewhere[0].objectID)) {
            try reader.objectIDs(forRelationshipNamed: "posts", of: elsewhere)
        }
    }
}
