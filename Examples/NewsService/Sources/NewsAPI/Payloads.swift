import Foundation

/// The body of `POST /news` and `PATCH /news/:objectId` (in a patch, only
/// the fields given change).
public struct NewsInput: Sendable, Decodable {
    public var title: String?
    public var body: String?
    public var author: String?
    public var tags: [String]?

    public init(title: String? = nil, body: String? = nil, author: String? = nil, tags: [String]? = nil) {
        self.title = title
        self.body = body
        self.author = author
        self.tags = tags
    }
}

/// One item of `POST /feed`: a news known by its `objectId`.
public struct FeedItem: Sendable, Decodable {
    public var objectId: String
    public var title: String
    public var body: String?
    public var author: String?
    public var tags: [String]?
}

/// What `POST /feed` answers.
public struct FeedResult: Sendable, Encodable {
    public var received: Int
    public var inserted: Int
    public var updated: Int

    public init(received: Int, inserted: Int, updated: Int) {
        self.received = received
        self.inserted = inserted
        self.updated = updated
    }
}

/// What `DELETE /news?before=…` answers.
public struct DeleteResult: Sendable, Encodable {
    public var deleted: Int

    public init(deleted: Int) { self.deleted = deleted }
}

/// A page of `GET /news`.
public struct NewsPage<Item: Encodable & Sendable>: Sendable, Encodable {
    public var news: [Item]
    public var limit: Int
    public var offset: Int

    public init(news: [Item], limit: Int, offset: Int) {
        self.news = news
        self.limit = limit
        self.offset = offset
    }
}

/// The service's JSON: ISO 8601 dates, keys sorted.
public enum ServiceJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
