import Foundation
import Kura
import KuraTestSupport
import Testing

/// Key paths through relationships, quantifiers, collection operators and
/// subqueries, evaluated on stored objects (with and without indexes) and
/// on the same graph unsaved, which must all agree.
@Suite struct RelationshipPredicateTests {
    /// Ann wrote "a1" (tags swift, linux; comments 5, 1) and "a2" (tag swift);
    /// Bob wrote "b1" (tags linux, kura, db; comment 4); "orphan" has no author.
    static func build(in context: ManagedObjectContext) -> [String: ManagedObject] {
        var objects: [String: ManagedObject] = [:]
        let ann = Author(context: context)
        ann.name = "Ann"
        let bob = Author(context: context)
        bob.name = "Bob"
        var tags: [String: Tag] = [:]
        for name in ["swift", "linux", "kura", "db"] {
            let tag = Tag(context: context)
            tag.name = name
            tags[name] = tag
        }
        func post(_ title: String, _ author: Author?, _ tagNames: [String], _ scores: [Int], score: Int) {
            let post = Post(context: context)
            post.title = title
            post.score = score
            post.author = author
            post.tags = Set(tagNames.map { tags[$0]! })
            post.comments = scores.map { score in
                let comment = Comment(context: context)
                comment.text = "c\(score)"
                comment.score = score
                return comment
            }
            objects[title] = post
        }
        post("a1", ann, ["swift", "linux"], [5, 1], score: 10)
        post("a2", ann, ["swift"], [], score: 20)
        post("b1", bob, ["linux", "kura", "db"], [4], score: 30)
        post("orphan", nil, [], [], score: 40)
        objects["Ann"] = ann
        objects["Bob"] = bob
        return objects
    }

    /// The titles of the posts `format` matches, found the three ways.
    func titles(_ format: String, _ arguments: [Any?] = [], sort: String? = nil) throws -> [String] {
        let store = try TestStore()
        let container = try store.open(.blog())
        let saved = container.newContext()
        let storedObjects = Self.build(in: saved)
        try saved.save()
        let unsaved = container.newContext()
        let unsavedObjects = Self.build(in: unsaved)
        func request(_ objects: [String: ManagedObject]) throws -> FetchRequest<ManagedObject> {
            func resolve(_ argument: Any?) -> Any? {
                if let name = argument as? ObjectName { return objects[name.name] }
                if let list = argument as? [ObjectName] { return list.map { objects[$0.name]! } }
                return argument
            }
            let resolved = arguments.map(resolve)
            var request = FetchRequest(entityName: "Post", predicate: try FetchPredicate(format: format, argumentArray: resolved))
            if let sort { request = request.sorted(by: sort) }
            return request
        }
        let indexed = try container.newContext().fetch(try request(storedObjects), as: Post.self).map(\.title)
        var plain = try request(storedObjects)
        plain.allowsIndexes = false
        let scanned = try container.newContext().fetch(plain, as: Post.self).map(\.title)
        let pending = try unsaved.fetch(try request(unsavedObjects), as: Post.self).filter(\.isInserted).map(\.title)
        if sort == nil {
            #expect(Set(indexed) == Set(scanned), "\(format): index \(indexed), scan \(scanned)")
            #expect(Set(indexed) == Set(pending), "\(format): saved \(indexed), unsaved \(pending)")
            return indexed.sorted()
        }
        #expect(indexed == scanned && indexed == pending, "\(format): \(indexed), \(scanned), \(pending)")
        return indexed
    }

    /// Stands for the object of that name in each graph.
    struct ObjectName { let name: String }

    /// The titles (or names, of `entity`) a template of `format` matches
    /// with `variables`: through the model's compiled template, saved
    /// (by index and by scan) and unsaved, and through the predicate's own
    /// substitution, which must all agree.
    func templateTitles(_ format: String, _ variables: [String: Any], entity: String = "Post") throws -> [String] {
        let model = try ManagedObjectModel.blog()
        try model.setFetchRequestTemplate(FetchRequest(entityName: entity, predicate: try FetchPredicate(format: format)), forName: "t")
        let store = try TestStore()
        let container = try store.open(model)
        let saved = container.newContext()
        _ = Self.build(in: saved)
        try saved.save()
        let unsaved = container.newContext()
        _ = Self.build(in: unsaved)
        func names(_ objects: [ManagedObject]) throws -> [String] {
            try objects.map { try ($0.value(forKey: entity == "Post" ? "title" : "name") ?? nil).map { "\($0)" } ?? "" }.sorted()
        }
        let request = try model.fetchRequestFromTemplate(withName: "t", substitutionVariables: variables)
        let indexed = try names(container.newContext().fetch(request))
        var plain = request
        plain.allowsIndexes = false
        let scanned = try names(container.newContext().fetch(plain))
        let pending = try names(unsaved.fetch(request).filter(\.isInserted))
        let substituted = try names(container.newContext().fetch(FetchRequest(
            entityName: entity, predicate: try FetchPredicate(format: format).withSubstitutionVariables(variables))))
        #expect(indexed == scanned && indexed == pending && indexed == substituted,
                "\(format): index \(indexed), scan \(scanned), unsaved \(pending), substituted \(substituted)")
        return indexed
    }

    /// Found by the outside graph suite: a variable inside a SUBQUERY was
    /// left unsubstituted (nothing matched), a list variable through a
    /// relationship was refused, and an aggregate after a SUBQUERY's
    /// variable didn't parse.
    @Test func templateVariablesWorkInsideSubqueriesAndThroughRelationships() throws {
        #expect(try templateTitles("SUBQUERY(comments, $c, $c.score > $SCORE).@count > 0", ["SCORE": 3]) == ["a1", "b1"])
        #expect(try templateTitles("SUBQUERY(comments, $c, $c.score BETWEEN {$LOW, $HIGH}).@count > 0", ["LOW": 2, "HIGH": 4]) == ["b1"])
        #expect(try templateTitles("SUBQUERY(tags, $t, $t.name IN $NAMES).@count >= $LEAST", ["NAMES": ["kura", "db", "swift"], "LEAST": 2]) == ["b1"])
        #expect(try templateTitles("author.name IN $NAMES", ["NAMES": ["Bob", "Ann"]]) == ["a1", "a2", "b1"])
        #expect(try templateTitles("ANY tags.name IN $NAMES", ["NAMES": ["kura"]]) == ["b1"])
        #expect(try templateTitles("author.name == $NAME AND score > $SCORE", ["NAME": "Ann", "SCORE": 15]) == ["a2"])
        #expect(try templateTitles("comments.@sum.score >= $TOTAL", ["TOTAL": 5]) == ["a1"])
        #expect(try templateTitles("SUBQUERY(posts, $p, $p.comments.@count == $NONE).@count == 1", ["NONE": 0], entity: "Author") == ["Ann"])
        #expect(try templateTitles("SUBQUERY(posts, $p, $p.comments.@sum.score > $MORE).@count > 0", ["MORE": 5], entity: "Author") == ["Ann"])
    }

    @Test func fetchingOneEntityAsAnotherClassSaysWhichEntityTheRequestNames() throws {
        let store = try TestStore()
        let context = try store.open(.blog()).newContext()
        #expect(throws: KuraError.classMismatch(requested: "Author", entity: "Post", entityClass: "Post")) {
            try context.fetch(FetchRequest(entityName: "Post"), as: Author.self)
        }
        #expect(KuraError.classMismatch(requested: "Author", entity: "Post", entityClass: "Post").description
            == "the request fetches Post, whose objects are Post, not Author")
    }

    @Test func anAggregateCanFollowASubqueryVariable() throws {
        let store = try TestStore()
        let context = try store.open(.blog()).newContext()
        _ = Self.build(in: context)
        try context.save()
        func names(_ format: String) throws -> [String] {
            try context.fetch(FetchRequest(entityName: "Author", predicate: try FetchPredicate(format: format)), as: Author.self).map(\.name).sorted()
        }
        #expect(try names("SUBQUERY(posts, $p, $p.comments.@count == 0).@count == 1") == ["Ann"])
        #expect(try names("SUBQUERY(posts, $p, $p.comments.@sum.score > 5).@count > 0") == ["Ann"])
        #expect(try names("SUBQUERY(posts, $p, $p.tags.@count >= 3).@count == 1") == ["Bob"])
        let predicate = try FetchPredicate(format: "SUBQUERY(posts, $p, $p.comments.@max.score == 5).@count > 0")
        #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
        #expect(predicate.predicateFormat == "SUBQUERY(posts, $p, $p.comments.@max.score == 5).@count > 0")
    }

    @Test func keyPathsThroughToOnes() throws {
        #expect(try titles("author.name == 'Ann'") == ["a1", "a2"])
        #expect(try titles("author.name BEGINSWITH[c] 'b'") == ["b1"])
        #expect(try titles("author == nil") == ["orphan"])
        #expect(try titles("author != nil AND score > 15") == ["a2", "b1"])
        #expect(try titles("author == %@", [ObjectName(name: "Bob")]) == ["b1"])
        #expect(try titles("author IN %@", [[ObjectName(name: "Bob"), ObjectName(name: "Ann")]]) == ["a1", "a2", "b1"])
        #expect(try titles("SELF == %@", [ObjectName(name: "a2")]) == ["a2"])
        #expect(try titles("NOT SELF IN %@", [[ObjectName(name: "a2"), ObjectName(name: "b1")]]) == ["a1", "orphan"])
        #expect(try titles("'Annabel' BEGINSWITH author.name") == ["a1", "a2"])
    }

    @Test func toManyKeyPathsWithQuantifiers() throws {
        #expect(try titles("ANY tags.name == 'swift'") == ["a1", "a2"])
        #expect(try titles("tags.name == 'linux'") == ["a1", "b1"], "a to-many key path means ANY")
        #expect(try titles("SOME tags.name IN {'kura', 'db'}") == ["b1"])
        #expect(try titles("ALL tags.name == 'swift'") == ["a2", "orphan"], "ALL is true for no members")
        #expect(try titles("NONE tags.name == 'linux'") == ["a2", "orphan"])
        #expect(try titles("'swift' IN tags.name") == ["a1", "a2"])
        #expect(try titles("ANY comments.score > 4") == ["a1"])
        #expect(try titles("ANY author.posts.score >= 30") == ["b1"])
    }

    @Test func collectionOperatorsAndSubqueries() throws {
        #expect(try titles("tags.@count > 1") == ["a1", "b1"])
        #expect(try titles("tags.@count == 0") == ["orphan"])
        #expect(try titles("comments.@sum.score == 6") == ["a1"])
        #expect(try titles("comments.@avg.score == 4") == ["b1"])
        #expect(try titles("comments.@max.score > 4") == ["a1"])
        #expect(try titles("comments.@min.score == 1") == ["a1"])
        #expect(try titles("SUBQUERY(comments, $c, $c.score > 3).@count > 0") == ["a1", "b1"])
        #expect(try titles("SUBQUERY(tags, $t, $t.name BEGINSWITH 'l' OR name == 'db').@count == 2") == ["b1"])
        #expect(try titles("author.posts.@count == 2") == ["a1", "a2"])
    }

    @Test func sortingByAToOneKeyPath() throws {
        #expect(try titles("author != nil", sort: "author.name") == ["a1", "a2", "b1"])
    }

    @Test func unsavedRelationshipChangesAreSeenByTheNextFetch() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let objects = Self.build(in: context)
        try context.save()
        let post = objects["orphan"] as! Post
        post.author = objects["Ann"] as? Author
        let ann = try context.fetch(FetchRequest(entityName: "Post", predicate: "author.name == 'Ann'"), as: Post.self)
        #expect(Set(ann.map(\.title)) == ["a1", "a2", "orphan"])
        (objects["Bob"] as! Author).name = "Robert"
        let robert = try context.fetch(FetchRequest(entityName: "Post", predicate: "author.name == 'Robert'"), as: Post.self)
        #expect(robert.map(\.title) == ["b1"], "a related object's unsaved attribute counts too")
        context.delete(objects["b1"]!)
        #expect(try context.count(for: FetchRequest(entityName: "Author", predicate: "posts.@count == 0")) == 1)
    }

    @Test func badKeyPathsAreClearErrorsBeforeAnyRead() throws {
        let store = try TestStore()
        let context = try store.open(.blog()).newContext()
        func error(_ format: String) -> String {
            do {
                _ = try context.fetch(FetchRequest(entityName: "Post", predicate: try FetchPredicate(format: format)))
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(error("author.nope == 1").contains("Author has no attribute 'nope"))
        #expect(error("title.length == 1").contains("attribute, so nothing follows it"))
        #expect(error("ANY title == 'x'").contains("ANY needs a to-many key path"))
        #expect(error("author == 'Ann'").contains("objects of Author can't be compared"))
        #expect(error("author < nil").contains("can only be compared with ==, != or IN"))
        #expect(error("tags.@sum.name > 1").contains("@sum needs a number"))
        #expect(error("author == CAST(\"kura://Tag/1\", \"ObjectID\")").contains("is not an object of Author"))
    }

    @Test func relationshipPredicatesRoundTripThroughTheirFormat() throws {
        for format in [
            "ANY tags.name == \"swift\"", "ALL comments.score > 3", "NONE tags.name BEGINSWITH[c] \"l\"",
            "tags.@count >= 3", "comments.@sum.score == 6", "SUBQUERY(comments, $c, $c.score > 3 AND text != nil).@count > 0",
            "author == CAST(\"kura://Author/3\", \"ObjectID\")", "SELF IN {CAST(\"kura://Post/1\", \"ObjectID\")}",
            "author.name == $name",
        ] {
            let predicate = try FetchPredicate(format: format)
            #expect(predicate.predicateFormat == format)
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
        }
    }
}
