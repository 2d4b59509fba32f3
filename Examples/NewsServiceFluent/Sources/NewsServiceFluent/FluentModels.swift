import FluentKit
import FluentSQL
import Foundation

/// A news item, as Fluent's documentation writes a model: timestamps set by
/// Fluent on create and update, an optional parent, siblings through a pivot.
final class NewsRow: Model, @unchecked Sendable {
    static let schema = "news"

    @ID(key: .id) var id: UUID?
    @Field(key: "object_id") var objectId: String
    @Field(key: "title") var title: String
    @Field(key: "body") var body: String
    @Timestamp(key: "date_created", on: .create) var dateCreated: Date?
    @Timestamp(key: "date_updated", on: .update) var dateUpdated: Date?
    @OptionalParent(key: "author_id") var author: AuthorRow?
    @Siblings(through: NewsTagRow.self, from: \.$news, to: \.$tag) var tags: [TagRow]

    init() {}

    init(objectId: String, title: String, body: String, authorID: UUID?) {
        self.id = UUID()
        self.objectId = objectId
        self.title = title
        self.body = body
        self.$author.id = authorID
    }
}

final class AuthorRow: Model, @unchecked Sendable {
    static let schema = "authors"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String

    init() {}
}

final class TagRow: Model, @unchecked Sendable {
    static let schema = "tags"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String

    init() {}
}

/// The news-tag pivot.
final class NewsTagRow: Model, @unchecked Sendable {
    static let schema = "news_tags"

    @ID(key: .id) var id: UUID?
    @Parent(key: "news_id") var news: NewsRow
    @Parent(key: "tag_id") var tag: TagRow

    init() {}

    init(newsID: UUID, tagID: UUID) {
        self.id = UUID()
        self.$news.id = newsID
        self.$tag.id = tagID
    }
}

/// The schema, with the indexes an expert adds: unique `object_id` and
/// names, `date_created` for the list's default sort and range, the
/// pivot's two directions, `author_id` for the author filter.
struct CreateNewsSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(AuthorRow.schema).id().field("name", .string, .required).unique(on: "name").create()
        try await database.schema(TagRow.schema).id().field("name", .string, .required).unique(on: "name").create()
        try await database.schema(NewsRow.schema).id()
            .field("object_id", .string, .required).unique(on: "object_id")
            .field("title", .string, .required)
            .field("body", .string, .required)
            .field("date_created", .datetime)
            .field("date_updated", .datetime)
            .field("author_id", .uuid, .references(AuthorRow.schema, "id", onDelete: .setNull))
            .create()
        try await database.schema(NewsTagRow.schema).id()
            .field("news_id", .uuid, .required, .references(NewsRow.schema, "id", onDelete: .cascade))
            .field("tag_id", .uuid, .required, .references(TagRow.schema, "id", onDelete: .cascade))
            .unique(on: "news_id", "tag_id")
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.create(index: "news_date_created").on(NewsRow.schema).column("date_created").run()
        try await sql.create(index: "news_author").on(NewsRow.schema).column("author_id").run()
        try await sql.create(index: "news_tags_tag").on(NewsTagRow.schema).column("tag_id").run()
    }

    func revert(on database: any Database) async throws {
        for schema in [NewsTagRow.schema, NewsRow.schema, TagRow.schema, AuthorRow.schema] {
            try await database.schema(schema).delete()
        }
    }
}
