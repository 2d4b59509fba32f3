import Foundation
import Kura
import NewsAPI
import NIOCore

/// What the service does with the store, each call request-scoped: a new
/// context on the container's pool of threads
/// (``PersistentContainer/performBackgroundTask(_:)``), never on an event
/// loop or a thread of Swift's cooperative pool, returning snapshots.
public struct NewsStore: NewsBackend {
    public let container: PersistentContainer
    public let templates: NewsModel

    public init(container: PersistentContainer, templates: NewsModel) {
        self.container = container
        self.templates = templates
    }

    /// The relationships an answer reads (``NewsJSON``): fetched with the
    /// news, not one fault (one read) each.
    static let answered = ["author", "tags"]

    /// The `getNews` template's request for `objectId`, prefetching what an answer reads.
    private func answerRequest(_ objectId: String) throws -> FetchRequest<News> {
        var request = try templates.getNews.request(objectId)
        request.relationshipKeyPathsForPrefetching = Self.answered
        return request
    }

    /// Inserts a news item: its hooks set `objectId`, `dateCreated` and `dateUpdated`.
    public func create(_ input: NewsInput) async throws -> NewsJSON {
        let title = try input.requiredTitle()
        return try await container.performBackgroundTask { context in
            context.mergePolicy = .mergeByPropertyObjectTrump  // an author or tag made meanwhile by another request is the same one
            let news = News(context: context)
            news.title = title
            news.body = input.body ?? ""
            try Self.setAuthorAndTags(of: news, from: input, in: context)
            try context.save()
            return try NewsJSON(news)
        }
    }

    /// A page of news, filtered and sorted.
    public func list(_ query: NewsQuery) async throws -> NewsPage<NewsJSON> {
        let request = try query.request()
        return try await container.performBackgroundTask { context in
            NewsPage(news: try context.fetch(request).map(NewsJSON.init), limit: query.limit, offset: query.offset)
        }
    }

    /// The news with `objectId`, through the `getNews` template, or `nil`.
    public func news(objectId: String) async throws -> NewsJSON? {
        let request = try answerRequest(objectId)
        return try await container.performBackgroundTask { context in
            try context.fetch(request).first.map(NewsJSON.init)
        }
    }

    /// Changes the fields `input` gives; `nil` for an unknown `objectId`.
    /// `willSave` moves `dateUpdated`.
    public func update(objectId: String, with input: NewsInput) async throws -> NewsJSON? {
        let request = try answerRequest(objectId)
        return try await container.performBackgroundTask { context in
            context.mergePolicy = .mergeByPropertyObjectTrump
            guard let news = try context.fetch(request).first else { return nil }
            if let title = input.title {
                guard !title.isEmpty else { throw BadRequest("a news item needs a title") }
                news.title = title
            }
            if let body = input.body { news.body = body }
            try Self.setAuthorAndTags(of: news, from: input, in: context)
            try context.save()
            return try NewsJSON(news)
        }
    }

    /// Imports a feed by `objectId` in one save: known news are updated in
    /// place (keeping their `dateCreated`), new ones inserted, without a
    /// fetch per item (upserts on the unique `objectId`).
    public func importFeed(_ items: [FeedItem]) async throws -> FeedResult {
        try FeedItem.check(items)
        return try await container.performBackgroundTask { context in
            context.mergePolicy = .mergeByPropertyObjectTrump
            let known = try context.count(for: FetchRequest<News>(predicate: FetchPredicate(format: "objectId IN %@", items.map(\.objectId))))
            for item in items {
                let news = News(context: context)
                news.objectId = item.objectId
                news.title = item.title
                if let body = item.body { news.body = body }
                try Self.setAuthorAndTags(of: news, from: NewsInput(author: item.author, tags: item.tags), in: context)
            }
            try context.save()
            return FeedResult(received: items.count, inserted: items.count - known, updated: known)
        }
    }

    /// Deletes every news created before `date` with one batch request
    /// (records deleted in the store, no object made).
    public func deleteNews(before date: Date) async throws -> DeleteResult {
        try await container.performBackgroundTask { context in
            let old = FetchRequest<News>(predicate: try FetchPredicate(format: "dateCreated < %@", date))
            return DeleteResult(deleted: try context.execute(BatchDeleteRequest(old)).count)
        }
    }

    /// `GET /changes`: server-sent events from an observed fetch of `query`.
    public func changes(_ query: NewsQuery) throws -> AsyncThrowingStream<ByteBuffer, any Error> {
        ChangeStream.events(of: try query.request(), in: container)
    }

    public var poolThreads: (threads: Int, limit: Int) {
        (container.backgroundThreadCount, container.store.options.backgroundThreadLimit)
    }

    /// Sets `news`'s author and tags from `input` (those it gives), each
    /// found by name or made.
    static func setAuthorAndTags(of news: News, from input: NewsInput, in context: ManagedObjectContext) throws {
        if let name = input.author {
            news.author = name.isEmpty ? nil : try named(Author.self, [name], in: context)[name]
        }
        if let names = input.tags {
            let tags = try named(Tag.self, names, in: context)
            news.tags = Set(names.compactMap { tags[$0] })
        }
    }

    /// The objects of `type` called `names`, fetched in one request, the
    /// missing ones inserted.
    static func named<Object: NamedObject>(_ type: Object.Type, _ names: [String], in context: ManagedObjectContext) throws -> [String: Object] {
        let wanted = Set(names.filter { !$0.isEmpty })
        guard !wanted.isEmpty else { return [:] }
        var found: [String: Object] = [:]
        for object in try context.fetch(FetchRequest<Object>(predicate: FetchPredicate(format: "name IN %@", Array(wanted)))) {
            found[object.name] = object
        }
        guard let entity = context.model.entity(for: Object.self) else { throw BadRequest("\(Object.self) is not in the model") }
        for name in wanted where found[name] == nil {
            let made = Object(entity: entity, insertInto: context)
            made.name = name
            found[name] = made
        }
        return found
    }
}
