import NewsDataset

/// One store engine under test on the object graph (``GraphDataset``):
/// News with an Author each and 1 to 5 Tags. Every engine answers the same
/// questions the way its users would, and returns the same checksums.
public protocol GraphEngine: AnyObject {
    /// "Kura", "raw LMDB", "GRDB".
    static var name: String { get }
    /// Opens a new, empty store in `directory`.
    init(directory: String) throws

    /// Inserts the authors, tags and news, with every link, in one transaction.
    func insert(_ dataset: GraphDataset) throws -> Checksum
    /// Every news with its author loaded (Kura prefetches it), reading each
    /// author's name: the total is the sum of their lengths.
    func fetchAllWithAuthor() throws -> Checksum
    /// One fetch per name of the news whose author has that name (an indexed
    /// attribute of the destination), in primary-key order, reading titles.
    func fetchByAuthorName(_ names: [String]) throws -> Checksum
    /// One fetch per name of the news with a tag of that name, reading titles.
    func fetchByTagName(_ names: [String]) throws -> Checksum
    /// The news with at least three tags.
    func fetchWithAtLeastThreeTags() throws -> Checksum
    /// Every author, counting its news: the total is the sum of the counts.
    func walkAuthorsCountingNews() throws -> Checksum
    /// Deletes the authors with these names, their news with them (cascade),
    /// and the news' tag links, and saves; the count is the authors deleted.
    func cascadeDeleteAuthors(_ names: [String]) throws -> Checksum
}

extension GraphEngine {
    public var name: String { Self.name }
}

/// The checksum of fetches run one after the other: the results' total
/// count, the first result of the first fetch, the last of the last, and
/// the sum of the totals.
struct ChecksumSeries {
    private(set) var checksum = Checksum(count: 0)

    mutating func add(count: Int, first: String?, last: String?, total: Int) {
        if checksum.first == nil { checksum.first = first }
        if last != nil { checksum.last = last }
        checksum.count += count
        checksum.total += total
    }
}
