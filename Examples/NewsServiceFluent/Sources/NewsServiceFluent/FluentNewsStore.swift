import FluentKit
import FluentSQL
import Foundation
import Hummingbird
import Logging
import NewsAPI
import NIOCore

/// A news item as the Fluent service answers: the same keys as Kura's.
struct FluentNewsJSON: Encodable, Sendable {
    var objectId: String
    var title: String
    var body: String
    var dateCreated: Date?
    var dateUpdated: Date?
    var authorName: String?
    var tags: [String]

    /// `row` with its author and tags loaded (eager loading, or set by hand).
    init(_ row: NewsRow, author: String?, tags: [String]) {
        objectId = row.objectId
        title = row.title
        body = row.body
        dateCreated = row.dateCreated
        dateUpdated = row.dateUpdated
        authorName = author
        self.tags = tags.sorted()
    }

    init(eagerLoaded row: NewsRow) {
        self.init(row, author: row.author?.name, tags: row.tags.map(\.name))
    }
}

/// The service's endpoints on Fluent, written as its documentation shows and
/// tuned as someone who knows it would: eager loading (`with`) instead of a
/// query per relation, batched creates, a feed imported with one query for
/// the known items and one insert for the new ones, in one transaction,
/// names made with `INSERT … ON CONFLICT DO NOTHING` so concurrent requests
/// never collide.
struct FluentNewsStore: NewsBackend {
    let databases: Databases
    let logger: Logger
    let eventLoops: any EventLoopGroup
    /// Connections per event loop (PostgreSQL; SQLite has one).
    let connectionsPerLoop: Int

    /// A database handle for one request, on one of the loops.
    var db: any Database { databases.database(logger: logger, on: eventLoops.any())! }

    func create(_ input: NewsInput) async throws -> FluentNewsJSON {
        let title = try input.requiredTitle()
        return try await db.transaction { db in
            let author = try await Self.named(AuthorRow.self, input.author.map { [$0] } ?? [], on: db).values.first
            let row = NewsRow(objectId: UUID().uuidString, title: title, body: input.body ?? "", authorID: author?.id)
            try await row.create(on: db)
            let tags = try await Self.named(TagRow.self, input.tags ?? [], on: db)
            try await tags.values.map { NewsTagRow(newsID: row.id!, tagID: $0.id!) }.create(on: db)
            return FluentNewsJSON(row, author: author?.name, tags: Array(tags.keys))
        }
    }

    func list(_ query: NewsQuery) async throws -> NewsPage<FluentNewsJSON> {
        let builder = NewsRow.query(on: db).with(\.$author).with(\.$tags)
        if let author = query.author {
            builder.join(AuthorRow.self, on: \NewsRow.$author.$id == \AuthorRow.$id).filter(AuthorRow.self, \.$name == author)
        }
        if let tag = query.tag {
            builder.join(siblings: \.$tags).filter(TagRow.self, \.$name == tag)
        }
        if let since = query.since { builder.filter(\.$dateCreated >= since) }
        if let until = query.until { builder.filter(\.$dateCreated < until) }
        let direction: DatabaseQuery.Sort.Direction = query.sortsDescending ? .descending : .ascending
        switch query.sortKey {
        case "title": builder.sort(\.$title, direction)
        case "dateUpdated": builder.sort(\.$dateUpdated, direction)
        default: builder.sort(\.$dateCreated, direction)
        }
        let rows = try await builder.sort(\.$objectId).offset(query.offset).limit(query.limit).all()
        return NewsPage(news: rows.map(FluentNewsJSON.init(eagerLoaded:)), limit: query.limit, offset: query.offset)
    }

    func news(objectId: String) async throws -> FluentNewsJSON? {
        try await NewsRow.query(on: db).filter(\.$objectId == objectId).with(\.$author).with(\.$tags).first()
            .map(FluentNewsJSON.init(eagerLoaded:))
    }

    func update(objectId: String, with input: NewsInput) async throws -> FluentNewsJSON? {
        try await db.transaction { db in
            guard let row = try await NewsRow.query(on: db).filter(\.$objectId == objectId).with(\.$author).with(\.$tags).first() else {
                return nil
            }
            if let title = input.title {
                guard !title.isEmpty else { throw BadRequest("a news item needs a title") }
                row.title = title
            }
            if let body = input.body { row.body = body }
            var authorName = row.author?.name
            if let name = input.author {
                let author = try await Self.named(AuthorRow.self, name.isEmpty ? [] : [name], on: db).values.first
                row.$author.id = author?.id
                authorName = author?.name
            }
            var tagNames = row.tags.map(\.name)
            if let names = input.tags {
                let tags = try await Self.named(TagRow.self, names, on: db)
                try await NewsTagRow.query(on: db).filter(\.$news.$id == row.id!).delete()
                try await tags.values.map { NewsTagRow(newsID: row.id!, tagID: $0.id!) }.create(on: db)
                tagNames = Array(tags.keys)
            }
            try await row.save(on: db)  // sets date_updated, even when only the tags changed
            return FluentNewsJSON(row, author: authorName, tags: tagNames)
        }
    }

    func importFeed(_ items: [FeedItem]) async throws -> FeedResult {
        try FeedItem.check(items)
        return try await db.transaction { db in
            let known = try await NewsRow.query(on: db).filter(\.$objectId ~~ items.map(\.objectId)).all()
            let byObjectId = Dictionary(uniqueKeysWithValues: known.map { ($0.objectId, $0) })
            let authors = try await Self.named(AuthorRow.self, items.compactMap(\.author), on: db)
            let tags = try await Self.named(TagRow.self, items.flatMap { $0.tags ?? [] }, on: db)
            var new: [NewsRow] = []
            var pivots: [NewsTagRow] = []
            var retagged: [UUID] = []
            for item in items {
                let row: NewsRow
                if let stored = byObjectId[item.objectId] {
                    row = stored
                    row.title = item.title
                    if let body = item.body { row.body = body }
                    if let author = item.author { row.$author.id = authors[author]?.id }
                    try await row.update(on: db)
                    if item.tags != nil { retagged.append(row.id!) }
                } else {
                    row = NewsRow(objectId: item.objectId, title: item.title, body: item.body ?? "", authorID: item.author.flatMap { authors[$0]?.id })
                    new.append(row)
                }
                pivots += (item.tags ?? []).compactMap { tags[$0] }.map { NewsTagRow(newsID: row.id!, tagID: $0.id!) }
            }
            try await new.create(on: db)  // one INSERT of every new row
            if !retagged.isEmpty { try await NewsTagRow.query(on: db).filter(\.$news.$id ~~ retagged).delete() }
            try await pivots.create(on: db)
            return FeedResult(received: items.count, inserted: new.count, updated: known.count)
        }
    }

    func deleteNews(before date: Date) async throws -> DeleteResult {
        try await db.transaction { db in
            let count = try await NewsRow.query(on: db).filter(\.$dateCreated < date).count()
            try await NewsRow.query(on: db).filter(\.$dateCreated < date).delete()  // the pivot rows go by ON DELETE CASCADE
            return DeleteResult(deleted: count)
        }
    }

    /// Fluent has no change notification: the stream polls the query every
    /// second and sends the results when they differ (what a Fluent app does
    /// without a listener of its own).
    func changes(_ query: NewsQuery) throws -> AsyncThrowingStream<ByteBuffer, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        let task = Task {
            continuation.yield(ByteBuffer(string: ": observing\n\n"))
            var previous: Data?
            let encoder = ServiceJSON.encoder()
            while !Task.isCancelled {
                do {
                    let data = try encoder.encode(["news": try await list(query).news])
                    if data != previous {
                        continuation.yield(ByteBuffer(string: "event: results\ndata: \(String(decoding: data, as: UTF8.self))\n\n"))
                        previous = data
                    }
                    try await Task.sleep(for: .seconds(1))
                } catch {
                    break
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func status(of error: any Error) -> HTTPResponse.Status? {
        (error as? any DatabaseError)?.isConstraintFailure == true ? .conflict : nil
    }

    var poolThreads: (threads: Int, limit: Int) {
        let loops = Array(eventLoops.makeIterator()).count
        return (loops, loops * connectionsPerLoop)
    }

    /// The rows of `type` called `names`, the missing ones inserted first
    /// with one `INSERT … ON CONFLICT DO NOTHING` (a concurrent request may
    /// make the same name), then all read with one query.
    static func named<Row: NamedRow>(_ type: Row.Type, _ names: [String], on db: any Database) async throws -> [String: Row] {
        let wanted = Array(Set(names.filter { !$0.isEmpty }))
        guard !wanted.isEmpty else { return [:] }
        let insert = (db as! any SQLDatabase).insert(into: Row.schema).columns("id", "name")
        for name in wanted { insert.values(SQLBind(UUID()), SQLBind(name)) }
        try await insert.ignoringConflicts(with: "name").run()
        let rows = try await Row.query(on: db).filter(Row.nameField ~~ wanted).all()
        return Dictionary(rows.map { ($0[keyPath: Row.nameField].value!, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A row known by a unique name: an author or a tag.
protocol NamedRow: Model where IDValue == UUID {
    static var nameField: KeyPath<Self, FieldProperty<Self, String>> { get }
}

extension AuthorRow: NamedRow {
    static var nameField: KeyPath<AuthorRow, FieldProperty<AuthorRow, String>> { \.$name }
}

extension TagRow: NamedRow {
    static var nameField: KeyPath<TagRow, FieldProperty<TagRow, String>> { \.$name }
}
