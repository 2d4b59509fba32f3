import Foundation
import Kura
import NewsDataset

final class GraphNews: ManagedObject {
    @Attribute(.unique) var objectId: String = ""
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var imageURL: String?
    @Attribute var dateCreated: Date = .distantPast
    @Attribute var dateUpdated: Date?
    @Attribute(.indexed) var sortOrder: Int = 0
    @Relationship var author: GraphAuthor?
    @Relationship(inverse: \GraphTag.news) var tags: Set<GraphTag>

    override class var entityName: String { "News" }
}

final class GraphAuthor: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \GraphNews.author, deleteRule: .cascade) var news: Set<GraphNews>

    override class var entityName: String { "Author" }
}

final class GraphTag: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship var news: Set<GraphNews>

    override class var entityName: String { "Tag" }
}

/// Kura on the object graph: relationships through managed objects, key-path
/// predicates in templates, a new context per operation.
public final class KuraGraphEngine: GraphEngine {
    public static let name = "Kura"
    let container: PersistentContainer

    public init(directory: String) throws {
        let model = try ManagedObjectModel(GraphNews.self, GraphAuthor.self, GraphTag.self)
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "author.name == $name"), forName: "newsByAuthor")
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "ANY tags.name == $name"), forName: "newsByTag")
        try model.setFetchRequestTemplate(FetchRequest(entityName: "Author", predicate: "name IN $names"), forName: "authorsNamed")
        var options = StoreOptions()
        options.initialSize = 1 << 30
        container = try PersistentContainer(path: directory + "/graph.kura", model: model, options: options)
    }

    deinit { container.close() }

    public func insert(_ dataset: GraphDataset) throws -> Checksum {
        let context = container.newContext()
        let authors = dataset.authorNames.map { name in
            let author = GraphAuthor(context: context)
            author.name = name
            return author
        }
        let tags = dataset.tagNames.map { name in
            let tag = GraphTag(context: context)
            tag.name = name
            return tag
        }
        for (index, value) in dataset.news.enumerated() {
            let news = GraphNews(context: context)
            news.objectId = value.objectId
            news.title = value.title
            news.body = value.body
            news.imageURL = value.imageURL
            news.dateCreated = value.dateCreated
            news.dateUpdated = value.dateUpdated
            news.sortOrder = value.sortOrder
            news.author = authors[dataset.authorOfNews[index]]
            news.tags = Set(dataset.tagsOfNews[index].map { tags[$0] })
        }
        try context.save()
        return Checksum(count: dataset.news.count)
    }

    public func fetchAllWithAuthor() throws -> Checksum {
        var request = FetchRequest(entityName: "News")
        request.relationshipKeyPathsForPrefetching = ["author"]
        // Objects don't keep their context alive, and relationships read through it.
        let context = container.newContext()
        let news = try context.fetch(request, as: GraphNews.self)
        return withExtendedLifetime(context) {
            Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                     total: news.reduce(0) { $0 + ($1.author?.name.utf8.count ?? 0) })
        }
    }

    private func fetchEach(_ template: String, _ names: [String]) throws -> Checksum {
        let context = container.newContext()
        var series = ChecksumSeries()
        for name in names {
            let request = try container.model.fetchRequestFromTemplate(withName: template, substitutionVariables: ["name": name])
            let news = try context.fetch(request, as: GraphNews.self)
            series.add(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                       total: news.reduce(0) { $0 + $1.title.utf8.count })
        }
        return series.checksum
    }

    public func fetchByAuthorName(_ names: [String]) throws -> Checksum { try fetchEach("newsByAuthor", names) }

    public func fetchByTagName(_ names: [String]) throws -> Checksum { try fetchEach("newsByTag", names) }

    public func fetchWithAtLeastThreeTags() throws -> Checksum {
        let news = try container.newContext().fetch(FetchRequest(entityName: "News", predicate: "tags.@count >= 3"), as: GraphNews.self)
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId)
    }

    public func walkAuthorsCountingNews() throws -> Checksum {
        let context = container.newContext()
        let authors = try context.fetch(FetchRequest(entityName: "Author"), as: GraphAuthor.self)
        return try withExtendedLifetime(context) {
            Checksum(count: authors.count, first: authors.first?.name, last: authors.last?.name,
                     total: try authors.reduce(0) { $0 + (try $1.$news.count) })
        }
    }

    public func cascadeDeleteAuthors(_ names: [String]) throws -> Checksum {
        let context = container.newContext()
        let request = try container.model.fetchRequestFromTemplate(withName: "authorsNamed", substitutionVariables: ["names": names])
        let authors = try context.fetch(request)
        for author in authors { context.delete(author) }
        try context.save()
        return Checksum(count: authors.count)
    }
}
