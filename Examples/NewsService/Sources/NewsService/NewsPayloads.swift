import Foundation
import Kura

/// A news item as the API returns it: the object's snapshot (every
/// attribute, by name; `author` as the author's object URI) with the
/// author's name and the tags' names beside it.
public struct NewsJSON: Sendable, Encodable {
    public let news: ObjectSnapshot<News>
    public let authorName: String?
    public let tags: [String]

    /// Read in the context that holds `news`.
    init(_ news: News) throws {
        self.news = try news.snapshot()
        authorName = news.author?.name
        tags = news.tags.map(\.name).sorted()
    }

    private enum Keys: String, CodingKey { case authorName, tags }

    public func encode(to encoder: any Encoder) throws {
        try news.encode(to: encoder)  // the snapshot's keys, then two more in the same object
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(authorName, forKey: .authorName)
        try container.encode(tags, forKey: .tags)
    }
}

/// The body of `POST /news` and `PATCH /news/:objectId` (in a patch, only
/// the fields given change).
public struct NewsInput: Sendable, Decodable {
    public var title: String?
    public var body: String?
    public var author: String?
    public var tags: [String]?
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
}

/// What `DELETE /news?before=…` answers.
public struct DeleteResult: Sendable, Encodable {
    public var deleted: Int
}

/// A page of `GET /news`.
public struct NewsPage: Sendable, Encodable {
    public var news: [NewsJSON]
    public var limit: Int
    public var offset: Int
}

/// The service's JSON: ISO 8601 dates, keys sorted.
enum ServiceJSON {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
