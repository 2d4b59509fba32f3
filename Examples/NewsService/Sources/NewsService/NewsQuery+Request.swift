import Foundation
import Kura
import NewsAPI

extension NewsQuery {
    /// The fetch request.
    func request() throws -> FetchRequest<News> {
        var conditions: [String] = []
        var arguments: [Any?] = []
        if let author { conditions.append("author.name == %@"); arguments.append(author) }
        if let tag { conditions.append("ANY tags.name == %@"); arguments.append(tag) }
        if let since { conditions.append("dateCreated >= %@"); arguments.append(since) }
        if let until { conditions.append("dateCreated < %@"); arguments.append(until) }
        let predicate = conditions.isEmpty ? nil : try FetchPredicate(format: conditions.joined(separator: " AND "), argumentArray: arguments)
        var request = FetchRequest<News>(predicate: predicate, sortBy: [
            FetchSortDescriptor(key: sortKey, ascending: !sortsDescending), FetchSortDescriptor(key: "objectId"),
        ])
        request.fetchLimit = limit
        request.fetchOffset = offset
        request.relationshipKeyPathsForPrefetching = NewsStore.answered
        return request
    }
}
