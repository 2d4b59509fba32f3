import Foundation

/// `GET /news`'s filters, sort and page, read from the query string.
public struct NewsQuery: Sendable {
    public var author: String?
    public var tag: String?
    public var since: Date?
    public var until: Date?
    /// `dateCreated`, `title` or `dateUpdated`; a leading `-` for descending.
    public var sort = "-dateCreated"
    public var limit = 20
    public var offset = 0

    public static let maximumLimit = 500

    /// The query of `parameters` (the query string's items), or an error naming the bad one.
    public init(_ parameters: (String) -> String?) throws {
        author = parameters("author")
        tag = parameters("tag")
        since = try parameters("since").map { try Self.date($0, name: "since") }
        until = try parameters("until").map { try Self.date($0, name: "until") }
        if let sort = parameters("sort") { self.sort = sort }
        limit = try parameters("limit").map { try Self.number($0, name: "limit", in: 1...Self.maximumLimit) } ?? limit
        offset = try parameters("offset").map { try Self.number($0, name: "offset", in: 0...Int.max) } ?? offset
        guard ["dateCreated", "dateUpdated", "title"].contains(sort.hasPrefix("-") ? String(sort.dropFirst()) : sort) else {
            throw BadRequest("sort=\(sort): sort by dateCreated, dateUpdated or title (a leading - for descending)")
        }
    }

    public static func date(_ text: String, name: String) throws -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw BadRequest("\(name)=\(text) is not an ISO 8601 date (2026-12-01T00:00:00Z)")
        }
        return date
    }

    public static func number(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw BadRequest("\(name)=\(text) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

/// A request the service refuses, with what to change (HTTP 400).
public struct BadRequest: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension NewsQuery {
    /// The sort key, without its `-`.
    public var sortKey: String { sort.hasPrefix("-") ? String(sort.dropFirst()) : sort }
    /// Whether the sort descends (a leading `-`).
    public var sortsDescending: Bool { sort.hasPrefix("-") }
}

/// No news has that `objectId` (HTTP 404).
public struct NotFound: Error, CustomStringConvertible {
    public let objectId: String
    public var description: String { "no news has objectId \(objectId)" }
    public init(objectId: String) { self.objectId = objectId }
}
