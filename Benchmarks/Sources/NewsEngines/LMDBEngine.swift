import Foundation
import KuraLMDB
import NewsDataset

/// Raw LMDB through KuraLMDB, with a hand-written record format and
/// hand-kept indexes: what the hardware and LMDB allow, the bound Kura is
/// measured against. Values decode into plain structs.
///
/// Layout: `records` primary key (8 bytes, big-endian) → record;
/// `objectId` objectId → primary key; `sortOrder` sign-flipped big-endian
/// sortOrder + primary key → empty.
public final class LMDBEngine: UpsertingEngine {
    public static let name = "raw LMDB"
    let environment: Environment
    let records: Database
    let byObjectId: Database
    let bySortOrder: Database

    public init(directory: String) throws {
        environment = try Environment(path: directory + "/news.lmdb", options: .init(mapSize: 1 << 30))
        (records, byObjectId, bySortOrder) = try environment.write { txn in
            (try txn.createDatabase(named: "records"), try txn.createDatabase(named: "objectId"),
             try txn.createDatabase(named: "sortOrder"))
        }
    }

    deinit { environment.close() }

    public static func key(_ primaryKey: UInt64) -> [UInt8] { withUnsafeBytes(of: primaryKey.bigEndian, Array.init) }

    public static func sortKey(_ sortOrder: Int, _ primaryKey: UInt64) -> [UInt8] {
        withUnsafeBytes(of: (UInt64(bitPattern: Int64(sortOrder)) ^ (1 << 63)).bigEndian, Array.init) + key(primaryKey)
    }

    static func primaryKey(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    }

    private func checksum(_ news: [NewsValue], readTitles: Bool = false) -> Checksum {
        Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                 total: readTitles ? news.reduce(0) { $0 + $1.title.utf8.count } : 0)
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        try environment.write { txn in
            var bytes: [UInt8] = []
            for (index, value) in news.enumerated() {
                let primaryKey = UInt64(index + 1)
                RawNewsCodec.encode(value, into: &bytes)
                try records.put(bytes, forKey: Self.key(primaryKey), in: txn, flags: .append)
                try byObjectId.put(Self.key(primaryKey), forKey: Array(value.objectId.utf8), in: txn, flags: .noOverwrite)
                try bySortOrder.put([], forKey: Self.sortKey(value.sortOrder, primaryKey), in: txn)
            }
        }
        return Checksum(count: news.count)
    }

    /// Each record looked up in the objectId index: a stored one is
    /// rewritten in place (its sortOrder entry moved if it changed), a new
    /// one appended under the next key (the store only grows here: the
    /// next key is the count plus one).
    public func upsert(_ news: [NewsValue]) throws -> Checksum {
        try environment.write { txn in
            var bytes: [UInt8] = []
            var next = UInt64(try records.count(in: txn)) + 1
            for value in news {
                RawNewsCodec.encode(value, into: &bytes)
                let objectId = Array(value.objectId.utf8)
                if let primaryKey = try byObjectId.withValue(forKey: objectId, in: txn, Self.primaryKey) {
                    let key = Self.key(primaryKey)
                    let oldSortOrder = try records.withValue(forKey: key, in: txn, RawNewsCodec.sortOrder)
                    if let oldSortOrder, oldSortOrder != value.sortOrder {
                        try bySortOrder.delete(Self.sortKey(oldSortOrder, primaryKey), in: txn)
                        try bySortOrder.put([], forKey: Self.sortKey(value.sortOrder, primaryKey), in: txn)
                    }
                    try records.put(bytes, forKey: key, in: txn)
                } else {
                    try records.put(bytes, forKey: Self.key(next), in: txn, flags: .append)
                    try byObjectId.put(Self.key(next), forKey: objectId, in: txn, flags: .noOverwrite)
                    try bySortOrder.put([], forKey: Self.sortKey(value.sortOrder, next), in: txn)
                    next += 1
                }
            }
        }
        return Checksum(count: news.count)
    }

    private func decodeAll() throws -> [NewsValue] {
        try environment.read { txn in
            var news: [NewsValue] = []
            news.reserveCapacity(try records.count(in: txn))
            try records.forEach(in: txn) { entry in
                news.append(RawNewsCodec.decode(entry.value))
                return true
            }
            return news
        }
    }

    public func fetchAll() throws -> Checksum { checksum(try decodeAll()) }

    public func fetchAllReadingTitles() throws -> Checksum { checksum(try decodeAll(), readTitles: true) }

    public func fetchAllReadingEveryField() throws -> Checksum {
        let news = try decodeAll()
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                        total: news.reduce(0) { $0 + Checksum.everyField(of: $1) })
    }

    /// Scanning and sorting in memory beats walking the index for a full
    /// sorted fetch, so that is the bound.
    public func fetchSortedBySortOrder() throws -> Checksum {
        var news = try decodeAll()
        news.sort { $0.sortOrder < $1.sortOrder }
        return checksum(news)
    }

    public func fetchSortedByTitle() throws -> Checksum {
        var news = try decodeAll()
        news.sort { $0.title < $1.title }
        return checksum(news)
    }

    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        try environment.read { txn in
            var news: [NewsValue] = []
            if usingIndex {
                try bySortOrder.forEach(in: txn) { entry in
                    try records.withValue(forKey: Self.key(Self.primaryKey(entry.key)), in: txn) { news.append(RawNewsCodec.decode($0)) }
                    return news.count < 100
                }
            } else {
                // A bounded max-heap of (sortOrder, primary key), then decode the 100.
                var heap: [(Int, UInt64)] = []
                try records.forEach(in: txn) { entry in
                    let order = RawNewsCodec.sortOrder(entry.value)
                    if heap.count < 100 {
                        heap.append((order, Self.primaryKey(entry.key)))
                        if heap.count == 100 { heap.sort { $0.0 > $1.0 } }
                    } else if order < heap[0].0 {
                        heap[0] = (order, Self.primaryKey(entry.key))
                        var parent = 0
                        while true {
                            let (left, right) = (parent * 2 + 1, parent * 2 + 2)
                            var largest = parent
                            if left < 100 && heap[left].0 > heap[largest].0 { largest = left }
                            if right < 100 && heap[right].0 > heap[largest].0 { largest = right }
                            if largest == parent { break }
                            heap.swapAt(parent, largest)
                            parent = largest
                        }
                    }
                    return true
                }
                for (_, primaryKey) in heap.sorted(by: { $0.0 < $1.0 }) {
                    try records.withValue(forKey: Self.key(primaryKey), in: txn) { news.append(RawNewsCodec.decode($0)) }
                }
            }
            return checksum(news)
        }
    }

    fileprivate func primaryKeys(in range: ClosedRange<Int>, _ txn: borrowing Transaction) throws -> [UInt64] {
        var keys: [UInt64] = []
        let lower = Array(Self.sortKey(range.lowerBound, 0).prefix(8))
        let upper = Array(Self.sortKey(range.upperBound, 0).prefix(8))
        try bySortOrder.forEach(in: txn, range: KeyRange(from: lower, to: KeyRange.successor(ofPrefix: upper)!)) { entry in
            keys.append(Self.primaryKey(entry.key))
            return true
        }
        return keys
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        try environment.read { txn in
            var news: [NewsValue] = []
            for primaryKey in try primaryKeys(in: range, txn) {
                try records.withValue(forKey: Self.key(primaryKey), in: txn) { news.append(RawNewsCodec.decode($0)) }
            }
            return checksum(news)
        }
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        var found: [NewsValue] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            let news = try environment.read { txn -> NewsValue? in
                var key = id
                let primaryKey = try key.withUTF8 { utf8 in
                    try byObjectId.withValue(forKey: UnsafeRawBufferPointer(utf8), in: txn) { Array($0) }
                }
                guard let primaryKey else { return nil }
                return try records.withValue(forKey: primaryKey, in: txn) { RawNewsCodec.decode($0) }
            }
            if let news { found.append(news) }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        Checksum(count: try environment.read { txn in try records.count(in: txn) })
    }

    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try environment.write { txn in
            var bytes: [UInt8] = []
            let keys = try primaryKeys(in: range, txn)
            let date = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(iteration))
            for primaryKey in keys {
                let key = Self.key(primaryKey)
                guard var news = try records.withValue(forKey: key, in: txn, RawNewsCodec.decode) else { continue }
                news.title = "updated \(iteration) \(news.sortOrder)"
                news.dateUpdated = date
                RawNewsCodec.encode(news, into: &bytes)
                try records.put(bytes, forKey: key, in: txn)
            }
            return Checksum(count: keys.count)
        }
    }

    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        try environment.write { txn in
            let keys = try primaryKeys(in: range, txn)
            for primaryKey in keys {
                let key = Self.key(primaryKey)
                guard let (objectId, sortOrder) = try records.withValue(forKey: key, in: txn, {
                    (RawNewsCodec.objectId($0), RawNewsCodec.sortOrder($0))
                }) else { continue }
                try byObjectId.delete(objectId, in: txn)
                try bySortOrder.delete(Self.sortKey(sortOrder, primaryKey), in: txn)
                try records.delete(key, in: txn)
            }
            return Checksum(count: keys.count)
        }
    }
}

extension LMDBEngine: BatchEngine {
    /// Its delete: raw LMDB has no objects to skip.
    public func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum { try delete(range) }

    public func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try environment.write { txn in
            var bytes: [UInt8] = []
            let keys = try primaryKeys(in: range, txn)
            let (title, date) = ("batch \(iteration)", Self.batchDate(iteration))
            for primaryKey in keys {
                let key = Self.key(primaryKey)
                guard var news = try records.withValue(forKey: key, in: txn, RawNewsCodec.decode) else { continue }
                news.title = title
                news.dateUpdated = date
                RawNewsCodec.encode(news, into: &bytes)
                try records.put(bytes, forKey: key, in: txn)
            }
            return Checksum(count: keys.count)
        }
    }

    /// Its insert.
    public func batchInsert(_ news: [NewsValue]) throws -> Checksum { try insert(news) }
}
