import Foundation
import Kura
import KuraTestSupport
import Testing

/// The reading-list app of the typed-API issue: articles by authors, with
/// tags and comments.
final class Article: ManagedObject {
    @Attribute(.unique) var url: String = ""
    @Attribute(.indexed) var title: String = ""
    @Attribute(.indexed) var rating: Int = 0
    @Attribute var score: Double?
    @Attribute var addedAt = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var summary: String?
    @Attribute var code: UUID?
    @Attribute var isRead = false
    @Relationship(inverse: \Writer.articles) var writer: Writer?
    @Relationship(inverse: \Label.articles) var labels: Set<Label>
    @Relationship(inverse: \Remark.article, deleteRule: .cascade) var remarks: [Remark]

    /// Not stored: a predicate can't search it.
    var displayTitle: String { title.uppercased() }
}

final class Writer: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Attribute var born: Int?
    @Relationship var articles: Set<Article>
}

final class Label: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship var articles: Set<Article>
}

final class Remark: ManagedObject {
    @Attribute var text: String = ""
    @Attribute var stars: Int = 0
    @Relationship var article: Article?
}

extension ManagedObjectModel {
    static func readingList() throws -> ManagedObjectModel {
        try ManagedObjectModel(Article.self, Writer.self, Label.self, Remark.self)
    }
}

enum ReadingList {
    /// A small, varied library: eight articles, three writers (one with
    /// none), labels and remarks, nils and empty strings among the values.
    static func fill(_ context: ManagedObjectContext) {
        let writers = [("Ann", 1970 as Int?), ("Bob", nil), ("Émile", 1990)].map { name, born in
            let writer = Writer(context: context)
            writer.name = name
            writer.born = born
            return writer
        }
        let labels = ["swift", "linux", "db", "kura"].map { name in
            let label = Label(context: context)
            label.name = name
            return label
        }
        let rows: [(String, Int, Double?, String?, Int?, [Int], [Int], Bool)] = [
            ("Kura ships", 5, 4.5, "an object store", 0, [0, 3], [5, 3], true),
            ("kura internals", 3, nil, "", 0, [3], [1], false),
            ("Linux tips", 4, 2.0, nil, 1, [1], [], true),
            ("Databases 101", 1, -1.5, "spaces and rows", 1, [2], [2, 2, 2], false),
            ("Swift on servers", 5, 3.0, "swift everywhere", 2, [0, 1], [4], false),
            ("Résumé writing", 2, 0.0, "café talk", 2, [], [], true),
            ("", 0, nil, nil, nil, [], [1, 5], false),
            ("Kura + Swift", 4, 5.0, "both", 0, [0, 3, 1], [5], false),
        ]
        for (number, row) in rows.enumerated() {
            let article = Article(context: context)
            article.url = "https://example.com/\(number)"
            article.title = row.0
            article.rating = row.1
            article.score = row.2
            article.summary = row.3
            article.addedAt = Date(timeIntervalSinceReferenceDate: Double(number) * 86_400)
            article.code = number % 2 == 0 ? UUID(uuidString: "00000000-0000-0000-0000-00000000000\(number)") : nil
            article.isRead = row.7
            article.writer = row.4.map { writers[$0] }
            article.labels = Set(row.5.map { labels[$0] })
            article.remarks = row.6.map { stars in
                let remark = Remark(context: context)
                remark.text = "\(stars) stars"
                remark.stars = stars
                return remark
            }
        }
    }
}

/// A store of ``ReadingList``, saved, and a second context holding the
/// same objects unsaved.
final class ReadingLibrary {
    let store: TestStore
    let container: PersistentContainer
    let saved: ManagedObjectContext
    let unsaved: ManagedObjectContext

    /// `prepare` runs on the model before a store uses it (templates).
    init(function: String = #function, prepare: (ManagedObjectModel) throws -> Void = { _ in }) throws {
        store = try TestStore(function: function)
        let model = try ManagedObjectModel.readingList()
        try prepare(model)
        container = try store.open(model)
        saved = container.newContext()
        ReadingList.fill(saved)
        try saved.save()
        unsaved = container.newContext()
        ReadingList.fill(unsaved)
    }

    /// The unsaved context's articles.
    func unsavedArticles() throws -> [Article] {
        try unsaved.fetch(FetchRequest<Article>()).filter(\.isInserted)
    }

    /// The URLs of the articles a request finds, every way (saved with
    /// indexes and without, unsaved); they must agree.
    func urls(_ request: FetchRequest<Article>, _ label: String) throws -> Set<String> {
        var scan = request
        scan.allowsIndexes = false
        let indexed = Set(try container.newContext().fetch(request).map(\.url))
        let scanned = Set(try container.newContext().fetch(scan).map(\.url))
        let pending = Set(try unsaved.fetch(request).filter(\.isInserted).map(\.url))
        #expect(indexed == scanned && indexed == pending, "\(label): index \(indexed), scan \(scanned), unsaved \(pending)")
        return indexed
    }
}
