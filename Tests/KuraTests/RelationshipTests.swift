import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct RelationshipTests {
    @Test func theModelPairsInversesNamedOnEitherSide() throws {
        let model = try ManagedObjectModel.blog()
        let post = try #require(model.entity(named: "Post"))
        #expect(post.relationship(named: "author")?.inverseName == "posts")
        #expect(post.relationship(named: "tags")?.inverseName == "posts")
        #expect(post.relationship(named: "comments")?.isOrdered == true)
        #expect(model.entity(named: "Tag")?.relationship(named: "posts")?.inverseName == "tags")
        #expect(model.entity(named: "Author")?.relationship(named: "posts")?.deleteRule == .cascade)
    }

    @Test func inversesThatDontPointAtEachOtherAreRefusedNamingBothEnds() throws {
        func model(_ a: [RelationshipDescription], _ b: [RelationshipDescription], c: [RelationshipDescription] = []) throws {
            let name = AttributeDescription(name: "name", type: .string)
            _ = try ManagedObjectModel(entities: [
                EntityDescription(name: "A", attributes: [name], relationships: a),
                EntityDescription(name: "B", attributes: [name], relationships: b),
                EntityDescription(name: "C", attributes: [name], relationships: c),
            ])
        }
        #expect(throws: KuraError.invalidModel("A.b points to entity Nope, which is not in the model")) {
            try model([.toOne("b", destination: "Nope")], [])
        }
        #expect(throws: KuraError.invalidModel("the inverse of A.b, B.nope, is not a relationship of B")) {
            try model([.toOne("b", destination: "B", inverse: "nope")], [])
        }
        #expect(throws: KuraError.invalidModel("A.b names B.c as its inverse, but that points to C, not A")) {
            try model([.toOne("b", destination: "B", inverse: "c")], [.toMany("c", destination: "C")])
        }
        #expect(throws: KuraError.invalidModel("A.b names B.a as its inverse, but that names A.other as its own")) {
            try model([.toOne("b", destination: "B", inverse: "a"), .toOne("other", destination: "B")],
                      [.toMany("a", destination: "A", inverse: "other")])
        }
        #expect(throws: KuraError.self) {
            // Two relationships of A claim B.a.
            try model([.toOne("b", destination: "B", inverse: "a"), .toOne("again", destination: "B", inverse: "a")],
                      [.toMany("a", destination: "A")])
        }
        #expect(throws: KuraError.invalidModel("A.me can't be its own inverse; declare two relationships")) {
            try model([.toMany("me", destination: "A", inverse: "me")], [])
        }
        // Without an inverse, and with both ends naming each other: fine.
        try model([.toOne("b", destination: "B")], [])
        try model([.toOne("b", destination: "B", inverse: "a")], [.toMany("a", destination: "A", inverse: "b")])
    }

    @Test func settingOneSideKeepsTheInverseRightAndSavesBoth() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let bob = Author(context: context)
        bob.name = "Bob"
        let post = Post(context: context)
        post.title = "Hello"
        post.author = ann
        #expect(ann.posts == [post])
        post.author = bob
        #expect(ann.posts.isEmpty && bob.posts == [post])
        let swift = Tag(context: context)
        swift.name = "swift"
        post.tags.insert(swift)
        #expect(swift.posts == [post])
        let first = Comment(context: context)
        first.text = "first"
        let second = Comment(context: context)
        second.text = "second"
        post.comments = [second, first]
        #expect(first.post === post)
        try context.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(Post.fetchRequest(), as: Post.self).first)
        #expect(stored.author?.name == "Bob")
        #expect(stored.tags.map(\.name) == ["swift"])
        #expect(stored.comments.map(\.text) == ["second", "first"], "an ordered to-many keeps its order")
        let storedBob = try #require(stored.author)
        #expect(storedBob.posts.map(\.title) == ["Hello"])
        #expect(try container.store.check().isConsistent)
    }
}
