import Foundation
import Kura

/// A news item, as the demo writes it: hooks set `objectId` and
/// `dateCreated` when it is inserted, and `dateUpdated` each time it is saved.
public final class News: ManagedObject {
    @Attribute(.unique) public var objectId: String = ""
    @Attribute public var title: String = ""
    @Attribute public var body: String = ""
    @Attribute(.indexed) public var dateCreated: Date?
    @Attribute public var dateUpdated: Date?
    @Relationship public var author: Author?
    @Relationship(inverse: \Tag.news) public var tags: Set<Tag>

    public override func awakeFromInsert() {
        super.awakeFromInsert()
        objectId = UUID().uuidString
        dateCreated = Date()
    }

    public override func willSave() {
        super.willSave()
        if !isDeleted { dateUpdated = Date() }  // joins the same save: no loop
    }
}

/// An object known by a unique name: an author or a tag.
public protocol NamedObject: ManagedObject {
    var name: String { get set }
}

/// A news item's author, found or made by name.
public final class Author: ManagedObject, NamedObject {
    @Attribute(.unique) public var name: String = ""
    @Relationship(inverse: \News.author, deleteRule: .nullify) public var news: Set<News>
}

/// A tag, shared by many news (a many-to-many).
public final class Tag: ManagedObject, NamedObject {
    @Attribute(.unique) public var name: String = ""
    @Relationship public var news: Set<News>
}

/// The service's model and its typed template.
public struct NewsModel: Sendable {
    public let model: ManagedObjectModel
    /// `getNews`: the news whose `objectId` is `$objectId`.
    public let getNews: FetchTemplate<News, String>

    public init() throws {
        model = try ManagedObjectModel(News.self, Author.self, Tag.self, versionIdentifier: "1.0")
        getNews = try model.setFetchRequestTemplate(
            FetchRequest<News>(predicate: "objectId == $objectId"), forName: "getNews", variables: ("objectId", String.self))
    }
}
