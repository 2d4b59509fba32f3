import Foundation
import Kura

final class OrderedStory: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: \OrderedComment.story, deleteRule: .cascade) var comments: [OrderedComment]
}

final class OrderedComment: ManagedObject {
    @Attribute var text: String = ""
    @Relationship var story: OrderedStory?
}

/// Kura's ordered to-many against its length (issue 40): a story with a
/// short list of comments and one with a long list, and the same small
/// change saved to each. The cost should follow the change, not the list.
public final class OrderedListEngine {
    let container: PersistentContainer
    private var short: ObjectID!
    private var long: ObjectID!
    private var added = 0

    public init(directory: String) throws {
        var options = StoreOptions()
        options.initialSize = 1 << 30
        container = try PersistentContainer(
            path: directory + "/ordered.kura", model: try ManagedObjectModel(OrderedStory.self, OrderedComment.self), options: options)
    }

    deinit { container.close() }

    /// A story with `shortLength` comments and one with `longLength`, in one save.
    public func fill(shortLength: Int, longLength: Int) throws {
        let context = container.newContext()
        func story(_ title: String, _ length: Int) -> OrderedStory {
            let story = OrderedStory(context: context)
            story.title = title
            story.comments = (0..<length).map { number in
                let comment = OrderedComment(context: context)
                comment.text = "comment \(number)"
                return comment
            }
            return story
        }
        let stories = [story("short", shortLength), story("long", longLength)]
        try context.save()
        (short, long) = (stories[0].objectID, stories[1].objectID)
    }

    private func story(long isLong: Bool, in context: ManagedObjectContext) throws -> OrderedStory {
        try context.existingObject(with: isLong ? long : short, as: OrderedStory.self)
    }

    private func comment(in context: ManagedObjectContext) -> OrderedComment {
        let comment = OrderedComment(context: context)
        comment.text = "added \(added)"
        added += 1
        return comment
    }

    /// `count` times, in a new context: a new comment appended (its
    /// `story` set, as an app does), and a save.
    public func append(_ count: Int, long isLong: Bool) throws -> Int {
        for _ in 0..<count {
            let context = container.newContext()
            comment(in: context).story = try story(long: isLong, in: context)
            try context.save()
        }
        return count
    }

    /// `count` times, in a new context: a new comment put first, and a
    /// save. The context reads the list to find the position.
    public func insertAtFront(_ count: Int, long isLong: Bool) throws -> Int {
        for _ in 0..<count {
            let context = container.newContext()
            try story(long: isLong, in: context).$comments.insert(comment(in: context), at: 0)
            try context.save()
        }
        return count
    }

    /// `count` times, in a new context: the last comment moved to the front, and a save.
    public func moveLastToFront(_ count: Int, long isLong: Bool) throws -> Int {
        for _ in 0..<count {
            let context = container.newContext()
            let story = try story(long: isLong, in: context)
            guard let last = story.comments.last else { continue }
            try story.$comments.insert(last, at: 0)
            try context.save()
        }
        return count
    }

    /// `count` times, in a new context: the comments read in order (their
    /// objects made, no value read), and nothing saved: what a move of a
    /// member the app picks out of the list reads first.
    public func readList(_ count: Int, long isLong: Bool) throws -> Int {
        var total = 0
        for _ in 0..<count {
            let context = container.newContext()
            total += try story(long: isLong, in: context).comments.count
            withExtendedLifetime(context) {}
        }
        return total
    }

    /// The number of comments of each story, read in order, and their text's length.
    public func readLists() throws -> [Int] {
        let context = container.newContext()
        return try [false, true].map { try story(long: $0, in: context).comments.reduce(0) { $0 + $1.text.utf8.count } }
    }
}
