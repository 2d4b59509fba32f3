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
