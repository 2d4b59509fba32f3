import Foundation
import Kura

/// `GET /news`'s filters, sort and page, read from the query string, as one fetch request.
struct NewsQuery: Sendable {
    var author: String?
    var tag: String?
    var since: Date?
    var until: Date?
    /// `dateCreated`, `title` or `dateUpdated`; a leading `-` for descending.
    var sort = "-dateCreated"
    var limit = 20
    var offset = 0

    static let maximumLimit = 500

    /// The query of `parameters` (the query string's items), or an error naming the bad one.
    init(_ parameters: (String) -> String?) throws {
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

    /// The fetch request.
    func request() throws -> FetchRequest<News> {
        var conditions: [String] = []
        var arguments: [Any?] = []
        if let author { conditions.append("author.name == %@"); arguments.append(author) }
        if let tag { conditions.append("ANY tags.name == %@"); arguments.append(tag) }
        if let since { conditions.append("dateCreated >= %@"); arguments.append(since) }
        if let until { conditions.append("dateCreated < %@"); arguments.append(until) }
        let predicate = conditions.isEmpty ? nil : try FetchPredicate(format: conditions.joined(separator: " AND "), argumentArray: arguments)
        let descending = sort.hasPrefix("-")
        let key = descending ? String(sort.dropFirst()) : sort
        var request = FetchRequest<News>(predicate: predicate, sortBy: [
            FetchSortDescriptor(key: key, ascending: !descending), FetchSortDescriptor(key: "objectId"),
        ])
        request.fetchLimit = limit
        request.fetchOffset = offset
        request.relationshipKeyPathsForPrefetching = ["author", "tags"]
        return request
    }

    static func date(_ text: String, name: String) throws -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw BadRequest("\(name)=\(text) is not an ISO 8601 date (2026-12-01T00:00:00Z)")
        }
        return date
    }

    static func number(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw BadRequest("\(name)=\(text) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

/// A request the service refuses, with what to change (HTTP 400).
struct BadRequest: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
