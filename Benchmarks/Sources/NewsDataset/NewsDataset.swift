import Foundation

/// One News record, as every engine stores it.
public struct NewsValue: Sendable, Hashable {
    public var objectId: String
    public var title: String
    public var body: String
    public var imageURL: String?
    public var dateCreated: Date
    public var dateUpdated: Date?
    public var sortOrder: Int

    public init(objectId: String, title: String, body: String, imageURL: String?,
                dateCreated: Date, dateUpdated: Date?, sortOrder: Int) {
        self.objectId = objectId
        self.title = title
        self.body = body
        self.imageURL = imageURL
        self.dateCreated = dateCreated
        self.dateUpdated = dateUpdated
        self.sortOrder = sortOrder
    }
}

/// The benchmark data: `count` News from a fixed seed, the same for every
/// engine and every run. `objectId` is a UUID string; titles are ~30
/// characters, bodies ~200, image URLs ~60 (one in five is nil); sortOrder
/// is a random permutation of 0, 7, 14, … (unique, so every engine agrees on
/// the order).
public struct NewsDataset: Sendable {
    public let news: [NewsValue]
    /// The objectIds looked up by the template benchmark: 10,000 (or all,
    /// when fewer) chosen at random.
    public let lookupIDs: [String]

    public static let sortOrderStep = 7

    public init(count: Int, seed: UInt64 = 0x4B55_5241) {
        var generator = SplitMix64(seed: seed)
        let words = ["kura", "store", "swift", "linux", "fetch", "object", "index", "query", "save", "model",
                     "daily", "news", "report", "market", "update", "weather", "sports", "science", "music", "travel"]
        func sentence(_ length: Int) -> String {
            var text = ""
            while text.count < length {
                if !text.isEmpty { text += " " }
                text += words[Int(generator.next() % UInt64(words.count))]
            }
            return String(text.prefix(length))
        }
        var orders = Array(0..<count)
        orders.shuffle(using: &generator)
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        var news: [NewsValue] = []
        news.reserveCapacity(count)
        for index in 0..<count {
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { bytes in
                for offset in stride(from: 0, to: 16, by: 8) {
                    bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                }
            }
            news.append(NewsValue(
                objectId: UUID(uuid: uuid).uuidString,
                title: sentence(26 + Int(generator.next() % 9)),
                body: sentence(180 + Int(generator.next() % 41)),
                imageURL: generator.next() % 5 == 0 ? nil : "https://images.example.com/news/\(index)/" + sentence(20).replacingOccurrences(of: " ", with: "-") + ".jpg",
                dateCreated: start.addingTimeInterval(Double(index) * 60),
                dateUpdated: generator.next() % 2 == 0 ? nil : start.addingTimeInterval(Double(index) * 60 + 3600),
                sortOrder: orders[index] * Self.sortOrderStep))
        }
        self.news = news
        let lookups = min(10_000, count)
        lookupIDs = (0..<lookups).map { _ in news[Int(generator.next() % UInt64(count))].objectId }
    }

    /// The sortOrder range holding `fraction` of the records, starting at
    /// `position` (0…1) of the order: `lower...upper` for BETWEEN.
    public func sortOrderRange(from position: Double, fraction: Double) -> ClosedRange<Int> {
        let first = Int(Double(news.count) * position)
        let size = max(1, Int(Double(news.count) * fraction))
        return (first * Self.sortOrderStep)...((first + size - 1) * Self.sortOrderStep)
    }
}

/// SplitMix64: a small fixed-seed generator, so every run has the same data.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
