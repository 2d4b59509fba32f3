import Foundation
import GRDB
import NewsDataset

struct AuthorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    static let news = hasMany(GraphNewsRecord.self)
    var id: Int64
    var name: String
}

struct TagRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tag"
    var id: Int64
    var name: String
}

struct NewsTagRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "newsTag"
    static let tag = belongsTo(TagRecord.self)
    var newsId: Int64
    var tagId: Int64
}

/// The `news` table with its author's foreign key.
struct GraphNewsRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "news"
    static let author = belongsTo(AuthorRecord.self)
    static let newsTags = hasMany(NewsTagRecord.self)
    static let tags = hasMany(TagRecord.self, through: newsTags, using: NewsTagRecord.tag)
    var id: Int64
    var objectId: String
    var title: String
    var body: String
    var imageURL: String?
    var dateCreated: Date
    var dateUpdated: Date?
    var sortOrder: Int
    var authorId: Int64
}

/// A news with its author, as `including(required:)` decodes it.
struct NewsWithAuthor: Decodable, FetchableRecord {
    var news: GraphNewsRecord
    var author: AuthorRecord
}

struct AuthorWithCount: Decodable, FetchableRecord {
    var name: String
    var newsCount: Int
}

/// GRDB on the object graph: associations (`belongsTo`, `hasMany`,
/// `hasMany(through:)`), `including(required:)`, joins and association
/// aggregates, foreign keys with `ON DELETE CASCADE`.
public final class GRDBGraphEngine: GraphEngine {
    public static let name = "GRDB"
    let queue: DatabaseQueue

    public init(directory: String) throws {
        queue = try DatabaseQueue(path: directory + "/graph.sqlite")
        try queue.write { db in
            try db.create(table: "author") { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull().unique()
            }
            try db.create(table: "tag") { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull().unique()
            }
            try db.create(table: "news") { table in
                table.primaryKey("id", .integer)
                table.newsColumns()
                table.belongsTo("author", onDelete: .cascade).notNull()
            }
            try db.create(table: "newsTag") { table in
                table.belongsTo("news", onDelete: .cascade).notNull()
                table.belongsTo("tag", onDelete: .cascade).notNull()
                table.primaryKey(["newsId", "tagId"])
            }
        }
    }

    public func insert(_ dataset: GraphDataset) throws -> Checksum {
        try queue.write { db in
            for (index, name) in dataset.authorNames.enumerated() { try AuthorRecord(id: Int64(index + 1), name: name).insert(db) }
            for (index, name) in dataset.tagNames.enumerated() { try TagRecord(id: Int64(index + 1), name: name).insert(db) }
            for (index, value) in dataset.news.enumerated() {
                let id = Int64(index + 1)
                try GraphNewsRecord(
                    id: id, objectId: value.objectId, title: value.title, body: value.body, imageURL: value.imageURL,
                    dateCreated: value.dateCreated, dateUpdated: value.dateUpdated, sortOrder: value.sortOrder,
                    authorId: Int64(dataset.authorOfNews[index] + 1)
                ).insert(db)
                for tag in dataset.tagsOfNews[index] { try NewsTagRecord(newsId: id, tagId: Int64(tag + 1)).insert(db) }
            }
        }
        return Checksum(count: dataset.news.count)
    }

    public func fetchAllWithAuthor() throws -> Checksum {
        let all = try queue.read { db in
            try GraphNewsRecord.including(required: GraphNewsRecord.author).orderByPrimaryKey().asRequest(of: NewsWithAuthor.self).fetchAll(db)
        }
        return Checksum(count: all.count, first: all.first?.news.objectId, last: all.last?.news.objectId,
                        total: all.reduce(0) { $0 + $1.author.name.utf8.count })
    }

    private func fetchEach(_ names: [String], _ request: (String) -> QueryInterfaceRequest<GraphNewsRecord>) throws -> Checksum {
        try queue.read { db in
            var series = ChecksumSeries()
            for name in names {
                let found = try request(name).orderByPrimaryKey().fetchAll(db)
                series.add(count: found.count, first: found.first?.objectId, last: found.last?.objectId,
                           total: found.reduce(0) { $0 + $1.title.utf8.count })
            }
            return series.checksum
        }
    }

    public func fetchByAuthorName(_ names: [String]) throws -> Checksum {
        try fetchEach(names) { name in
            GraphNewsRecord.joining(required: GraphNewsRecord.author.filter(Column("name") == name))
        }
    }

    public func fetchByTagName(_ names: [String]) throws -> Checksum {
        try fetchEach(names) { name in
            GraphNewsRecord.joining(required: GraphNewsRecord.tags.filter(Column("name") == name))
        }
    }

    public func fetchWithAtLeastThreeTags() throws -> Checksum {
        let found = try queue.read { db in
            try GraphNewsRecord.having(GraphNewsRecord.newsTags.count >= 3).orderByPrimaryKey().fetchAll(db)
        }
        return Checksum(count: found.count, first: found.first?.objectId, last: found.last?.objectId)
    }

    public func walkAuthorsCountingNews() throws -> Checksum {
        let authors = try queue.read { db in
            try AuthorRecord.select(Column("name")).annotated(with: AuthorRecord.news.count)
                .orderByPrimaryKey().asRequest(of: AuthorWithCount.self).fetchAll(db)
        }
        return Checksum(count: authors.count, first: authors.first?.name, last: authors.last?.name,
                        total: authors.reduce(0) { $0 + $1.newsCount })
    }

    public func cascadeDeleteAuthors(_ names: [String]) throws -> Checksum {
        try queue.write { db in
            Checksum(count: try AuthorRecord.filter(names.contains(Column("name"))).deleteAll(db))
        }
    }
}
