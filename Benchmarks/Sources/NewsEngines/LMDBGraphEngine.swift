import Foundation
import KuraLMDB
import NewsDataset

/// Raw LMDB on the object graph, with references and their indexes kept by
/// hand: the bound Kura is measured against.
///
/// Layout (keys are big-endian primary keys):
/// `news` key → author key + ``RawNewsCodec`` record; `news.objectId`,
/// `news.sortOrder` as in ``LMDBEngine``; `authors` key → name;
/// `authors.name` name → key; `tags` and `tags.name` alike;
/// `news.byAuthor` (author, news) → empty; `news.tags` (news, tag) → empty;
/// `tags.news` (tag, news) → empty.
public final class LMDBGraphEngine: GraphEngine {
    public static let name = "raw LMDB"
    let environment: Environment
    let news, newsByObjectId, newsBySortOrder, authors, authorsByName, tags, tagsByName, newsByAuthor, newsTags, tagNews: Database

    public init(directory: String) throws {
        environment = try Environment(path: directory + "/graph.lmdb", options: .init(mapSize: 1 << 30))
        let names = ["news", "news.objectId", "news.sortOrder", "authors", "authors.name", "tags", "tags.name",
                     "news.byAuthor", "news.tags", "tags.news"]
        let databases = try environment.write { txn in try names.map { try txn.createDatabase(named: $0) } }
        (news, newsByObjectId, newsBySortOrder, authors, authorsByName) = (databases[0], databases[1], databases[2], databases[3], databases[4])
        (tags, tagsByName, newsByAuthor, newsTags, tagNews) = (databases[5], databases[6], databases[7], databases[8], databases[9])
    }

    deinit { environment.close() }

    static func key(_ primaryKey: UInt64) -> [UInt8] { LMDBEngine.key(primaryKey) }
    static func pair(_ first: UInt64, _ second: UInt64) -> [UInt8] { key(first) + key(second) }
    static func first(_ bytes: UnsafeRawBufferPointer) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)) }
    static func last(_ bytes: UnsafeRawBufferPointer) -> UInt64 { LMDBEngine.primaryKey(bytes) }

    /// A news record: its author's key, then its values.
    static func decodeNews(_ bytes: UnsafeRawBufferPointer) -> (author: UInt64, value: NewsValue) {
        (first(bytes), RawNewsCodec.decode(UnsafeRawBufferPointer(rebasing: bytes[8...])))
    }

    public func insert(_ dataset: GraphDataset) throws -> Checksum {
        try environment.write { txn in
            for (index, name) in dataset.authorNames.enumerated() {
                let key = Self.key(UInt64(index + 1))
                try authors.put(Array(name.utf8), forKey: key, in: txn, flags: .append)
                try authorsByName.put(key, forKey: Array(name.utf8), in: txn, flags: .noOverwrite)
            }
            for (index, name) in dataset.tagNames.enumerated() {
                let key = Self.key(UInt64(index + 1))
                try tags.put(Array(name.utf8), forKey: key, in: txn, flags: .append)
                try tagsByName.put(key, forKey: Array(name.utf8), in: txn, flags: .noOverwrite)
            }
            var bytes: [UInt8] = []
            var record: [UInt8] = []
            for (index, value) in dataset.news.enumerated() {
                let primaryKey = UInt64(index + 1)
                let author = UInt64(dataset.authorOfNews[index] + 1)
                RawNewsCodec.encode(value, into: &bytes)
                record.removeAll(keepingCapacity: true)
                record += Self.key(author)
                record += bytes
                try news.put(record, forKey: Self.key(primaryKey), in: txn, flags: .append)
                try newsByObjectId.put(Self.key(primaryKey), forKey: Array(value.objectId.utf8), in: txn, flags: .noOverwrite)
                try newsBySortOrder.put([], forKey: LMDBEngine.sortKey(value.sortOrder, primaryKey), in: txn)
                try newsByAuthor.put([], forKey: Self.pair(author, primaryKey), in: txn)
                for tag in dataset.tagsOfNews[index] {
                    try newsTags.put([], forKey: Self.pair(primaryKey, UInt64(tag + 1)), in: txn, flags: .append)
                    try tagNews.put([], forKey: Self.pair(UInt64(tag + 1), primaryKey), in: txn)
                }
            }
        }
        return Checksum(count: dataset.news.count)
    }

    public func fetchAllWithAuthor() throws -> Checksum {
        try environment.read { txn in
            var all: [(NewsValue, UInt64)] = []
            all.reserveCapacity(try news.count(in: txn))
            try news.forEach(in: txn) { entry in
                let (author, value) = Self.decodeNews(entry.value)
                all.append((value, author))
                return true
            }
            // Each author's record once, as a prefetch would.
            var names: [UInt64: String] = [:]
            for (_, author) in all where names[author] == nil {
                names[author] = try authors.withValue(forKey: Self.key(author), in: txn) { String(decoding: $0, as: UTF8.self) }
            }
            return Checksum(count: all.count, first: all.first?.0.objectId, last: all.last?.0.objectId,
                            total: all.reduce(0) { $0 + (names[$1.1]?.utf8.count ?? 0) })
        }
    }

    /// The news whose keys are the second halves of `index`'s entries under `owner`.
    private func news(under owner: UInt64, in index: Database, _ txn: borrowing Transaction) throws -> [NewsValue] {
        var keys: [UInt64] = []
        try index.forEach(in: txn, range: .prefix(Self.key(owner))) { entry in
            keys.append(Self.last(entry.key))
            return true
        }
        var found: [NewsValue] = []
        found.reserveCapacity(keys.count)
        for key in keys {
            try news.withValue(forKey: Self.key(key), in: txn) { found.append(Self.decodeNews($0).value) }
        }
        return found
    }

    private func fetchEach(_ names: [String], byName: Database, index: Database) throws -> Checksum {
        try environment.read { txn in
            var series = ChecksumSeries()
            for name in names {
                guard let owner = try byName.withValue(forKey: Array(name.utf8), in: txn, Self.first) else { continue }
                let found = try news(under: owner, in: index, txn)
                series.add(count: found.count, first: found.first?.objectId, last: found.last?.objectId,
                           total: found.reduce(0) { $0 + $1.title.utf8.count })
            }
            return series.checksum
        }
    }

    public func fetchByAuthorName(_ names: [String]) throws -> Checksum {
        try fetchEach(names, byName: authorsByName, index: newsByAuthor)
    }

    public func fetchByTagName(_ names: [String]) throws -> Checksum {
        try fetchEach(names, byName: tagsByName, index: tagNews)
    }

    /// Counts each news' entries in `news.tags` (in news order), then reads
    /// the records of those with three or more.
    public func fetchWithAtLeastThreeTags() throws -> Checksum {
        try environment.read { txn in
            var keys: [UInt64] = []
            var current: UInt64 = 0
            var count = 0
            try newsTags.forEach(in: txn) { entry in
                let owner = Self.first(entry.key)
                if owner != current {
                    if count >= 3 { keys.append(current) }
                    (current, count) = (owner, 0)
                }
                count += 1
                return true
            }
            if count >= 3 { keys.append(current) }
            var found: [NewsValue] = []
            found.reserveCapacity(keys.count)
            for key in keys {
                try news.withValue(forKey: Self.key(key), in: txn) { found.append(Self.decodeNews($0).value) }
            }
            return Checksum(count: found.count, first: found.first?.objectId, last: found.last?.objectId)
        }
    }

    public func walkAuthorsCountingNews() throws -> Checksum {
        try environment.read { txn in
            var names: [String] = []
            var total = 0
            try authors.forEach(in: txn) { entry in
                names.append(String(decoding: entry.value, as: UTF8.self))
                try newsByAuthor.forEach(in: txn, range: .prefix(Array(entry.key))) { _ in
                    total += 1
                    return true
                }
                return true
            }
            return Checksum(count: names.count, first: names.first, last: names.last, total: total)
        }
    }

    public func cascadeDeleteAuthors(_ names: [String]) throws -> Checksum {
        try environment.write { txn in
            var deleted = 0
            for name in names {
                guard let author = try authorsByName.withValue(forKey: Array(name.utf8), in: txn, Self.first) else { continue }
                var newsKeys: [UInt64] = []
                try newsByAuthor.forEach(in: txn, range: .prefix(Self.key(author))) { entry in
                    newsKeys.append(Self.last(entry.key))
                    return true
                }
                for newsKey in newsKeys {
                    let key = Self.key(newsKey)
                    guard let (objectId, sortOrder) = try news.withValue(forKey: key, in: txn, { bytes in
                        let values = UnsafeRawBufferPointer(rebasing: bytes[8...])
                        return (RawNewsCodec.objectId(values), RawNewsCodec.sortOrder(values))
                    }) else { continue }
                    try newsByObjectId.delete(objectId, in: txn)
                    try newsBySortOrder.delete(LMDBEngine.sortKey(sortOrder, newsKey), in: txn)
                    var tagKeys: [UInt64] = []
                    try newsTags.forEach(in: txn, range: .prefix(key)) { entry in
                        tagKeys.append(Self.last(entry.key))
                        return true
                    }
                    for tag in tagKeys {
                        try newsTags.delete(Self.pair(newsKey, tag), in: txn)
                        try tagNews.delete(Self.pair(tag, newsKey), in: txn)
                    }
                    try newsByAuthor.delete(Self.pair(author, newsKey), in: txn)
                    try news.delete(key, in: txn)
                }
                try authorsByName.delete(Array(name.utf8), in: txn)
                try authors.delete(Self.key(author), in: txn)
                deleted += 1
            }
            return Checksum(count: deleted)
        }
    }
}
