import Foundation
import Hummingbird

/// What an implementation of the service provides (Kura's, Fluent's): the
/// routes (``NewsRoutes``) and the server (``NewsApp``) are the same for all.
public protocol NewsBackend: Sendable {
    /// A news item as the answers hold it.
    associatedtype Item: Encodable & Sendable

    /// Inserts a news item: `objectId`, `dateCreated` and `dateUpdated` are set for it.
    func create(_ input: NewsInput) async throws -> Item
    /// A page of news, filtered and sorted.
    func list(_ query: NewsQuery) async throws -> NewsPage<Item>
    /// The news with `objectId`, or `nil`.
    func news(objectId: String) async throws -> Item?
    /// Changes the fields `input` gives (moving `dateUpdated`); `nil` for an unknown `objectId`.
    func update(objectId: String, with input: NewsInput) async throws -> Item?
    /// Imports a feed by `objectId`: known news updated, new ones inserted, in one transaction.
    func importFeed(_ items: [FeedItem]) async throws -> FeedResult
    /// Deletes every news created before `date`.
    func deleteNews(before date: Date) async throws -> DeleteResult
    /// `GET /changes`: the `text/event-stream` body for `query`'s results.
    func changes(_ query: NewsQuery) throws -> AsyncThrowingStream<ByteBuffer, any Error>
    /// The answer's status for one of the store's errors, or `nil` (500).
    func status(of error: any Error) -> HTTPResponse.Status?
    /// The threads the store's pool has started, and its limit.
    var poolThreads: (threads: Int, limit: Int) { get }
}

extension FeedItem {
    /// Refuses a feed that names an `objectId` twice, or an item without `objectId` or title.
    public static func check(_ items: [FeedItem]) throws {
        guard Set(items.map(\.objectId)).count == items.count else { throw BadRequest("the feed names an objectId twice") }
        guard !items.contains(where: { $0.objectId.isEmpty || $0.title.isEmpty }) else {
            throw BadRequest("every feed item needs an objectId and a title")
        }
    }
}

extension NewsInput {
    /// The title a new news item gets, or an error when there is none.
    public func requiredTitle() throws -> String {
        guard let title, !title.isEmpty else { throw BadRequest("a news item needs a title") }
        return title
    }
}
