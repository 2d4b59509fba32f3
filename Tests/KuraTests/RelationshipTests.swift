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
