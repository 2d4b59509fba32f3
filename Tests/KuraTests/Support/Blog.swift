import Foundation
import Kura

/// A small object graph: authors write posts (cascade), posts have tags
/// (many-to-many) and ordered comments (cascade).
final class Author: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \Post.author, deleteRule: .cascade) var posts: Set<Post>
}

final class Post: ManagedObject {
    @Attribute var title: String = ""
    @Attribute(.indexed) var score: Int = 0
    @Relationship var author: Author?
    @Relationship(inverse: \Tag.posts) var tags: Set<Tag>
    @Relationship(inverse: \Comment.post, deleteRule: .cascade) var comments: [Comment]
}

final class Tag: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship var posts: Set<Post>
}

final class Comment: ManagedObject {
    @Attribute var text: String = ""
    @Attribute var score: Int = 0
    @Relationship var post: Post?
}

extension ManagedObjectModel {
    static func blog() throws -> ManagedObjectModel {
        try ManagedObjectModel(Author.self, Post.self, Tag.self, Comment.self)
    }
}
