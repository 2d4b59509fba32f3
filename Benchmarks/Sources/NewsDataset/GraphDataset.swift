/// The object-graph benchmark data: the News of a ``NewsDataset``, written
/// by N/100 Authors (unique names) and tagged with 1 to 5 (3 on average) of
/// N/10 Tags (unique names), all from a fixed seed. At N = 100k: 1,000
/// authors with ~100 news each, 10,000 tags on ~30 news each.
public struct GraphDataset: Sendable {
    public let news: [NewsValue]
    public let authorNames: [String]
    public let tagNames: [String]
    /// For each news, its author's position in `authorNames`.
    public let authorOfNews: [Int]
    /// For each news, its tags' positions in `tagNames` (distinct, ascending).
    public let tagsOfNews: [[Int]]
    /// The authors and tags the lookup benchmarks ask for: 100 of each (or
    /// all, when fewer), spread evenly.
    public let queriedAuthors: [String]
    public let queriedTags: [String]

    public init(count: Int, seed: UInt64 = 0x4752_4150) {
        news = NewsDataset(count: count).news
        var generator = SplitMix64(seed: seed)
        let first = ["Ann", "Bob", "Chen", "Dana", "Emeka", "Fatima", "Goro", "Hana", "Ivan", "Jun"]
        let last = ["Ito", "Okafor", "Silva", "Novak", "Khan", "Berg", "Rossi", "Tanaka", "Meyer", "Costa"]
        let authorCount = max(1, count / 100)
        let authorNames = (0..<authorCount).map { "\(first[$0 % 10]) \(last[$0 / 10 % 10]) \($0)" }
        self.authorNames = authorNames
        let topics = ["swift", "linux", "lmdb", "storage", "query", "index", "graph", "model", "sync", "tools"]
        let tagCount = max(5, count / 10)
        let tagNames = (0..<tagCount).map { "\(topics[$0 % 10])-\($0)" }
        self.tagNames = tagNames
        var authors: [Int] = []
        var tags: [[Int]] = []
        authors.reserveCapacity(count)
        tags.reserveCapacity(count)
        for _ in 0..<count {
            authors.append(Int(generator.next() % UInt64(authorCount)))
            let wanted = 1 + Int(generator.next() % 5)
            var chosen = Set<Int>()
            while chosen.count < wanted { chosen.insert(Int(generator.next() % UInt64(tagCount))) }
            tags.append(chosen.sorted())
        }
        authorOfNews = authors
        tagsOfNews = tags
        queriedAuthors = stride(from: 0, to: authorCount, by: max(1, authorCount / 100)).prefix(100).map { authorNames[$0] }
        queriedTags = stride(from: 0, to: tagCount, by: max(1, tagCount / 100)).prefix(100).map { tagNames[$0] }
    }

    /// The authors the cascade delete of `iteration` removes: a tenth of
    /// them (100 at N = 100k), different ones each iteration.
    public func deletedAuthors(iteration: Int) -> [String] {
        let size = max(1, authorNames.count / 10)
        let start = (iteration * size) % authorNames.count
        return Array(authorNames[start..<min(authorNames.count, start + size)])
    }
}
