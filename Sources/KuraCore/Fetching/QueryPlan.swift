/// How a fetch reads the store, as ``ManagedObjectContext/explain(_:)`` and
/// `kura plan` show it:
///
/// ```
/// SEARCH News USING UNIQUE INDEX objectId (objectId == "A1")
/// SCAN News (100000 objects), FILTER title CONTAINS[c] "kura", TOP 10 BY title ASC
/// SEARCH News USING INDEX sortOrder (sortOrder BETWEEN {10, 20}) IN INDEX ORDER, LIMIT 5
/// WALK News BY INDEX sortOrder DESC, LIMIT 100
/// COUNT News FROM ENTRY COUNT
/// SEARCH News THROUGH author USING UNIQUE INDEX Author.name (author.name == "Ann") (~120 objects), FILTER …
/// ```
///
/// The planner estimates what each way costs and takes the cheapest:
/// a full scan reads every record in primary-key order and checks the
/// predicate; an index search reads only the key ranges the predicate
/// allows (counting them first, up to a quarter of the entity, to see
/// whether they are selective) and fetches each record; an index walk reads
/// records in the order of an index that matches the sort descriptors and
/// stops at the limit; a search through a relationship finds the
/// destinations a term names (`author.name == "Ann"`, through an index of
/// `Author`) and the objects pointing to them through the relationship's
/// entries. Without such an index, a limit keeps only the best
/// results in a bounded heap (top-K) instead of sorting everything.
/// Whatever the plan, the full predicate is checked on every record, so the
/// plan changes the speed, never the results.
public struct QueryPlan: Sendable, CustomStringConvertible {
    enum Access {
        /// Every record, in primary-key order.
        case scan
        /// The ranges of an index the predicate allows.
        case search(IndexAccess)
        /// An entire index, in its order (for the sort).
        case walk(IndexSpace)
        /// Only a count: the engine's count of the records, adjusted for unsaved changes.
        case entryCount
        /// The objects pointing to destinations a term names, found through
        /// a relationship (``foundPrimaryKeys`` holds them).
        case related(RelatedAccess)
    }

    let access: Access
    let entityName: String
    /// True when records come out already in the requested order.
    let isInSortOrder: Bool
    /// Walk the index backwards (a descending sort).
    let isReversed: Bool
    /// With ``isInSortOrder``: how many of the fetch's sorts, from the
    /// first, the index order gives. Fewer than all: each run of records
    /// equal in those is sorted by the others as it ends (an incremental sort).
    let orderedSorts: Int
    /// Keep only this many of the sorted results (a bounded heap).
    let topK: Int?
    /// The fetch: its predicate and sort descriptors are described from it.
    let fetch: PreparedFetch
    /// False for a count, which has no order.
    let isOrdered: Bool

    private var sortDescriptors: [FetchSortDescriptor] { isOrdered ? fetch.request.sortDescriptors : [] }
    let limit: Int?
    let offset: Int
    /// The primary keys found while estimating an index search, in index
    /// order: the search need not run again.
    let foundPrimaryKeys: [UInt64]?

    /// How many records the plan expects to read, when it knows.
    public let estimatedRows: Int?
    /// For a fetch across sub-entities: each concrete entity's plan, in
    /// family order (the fetch merges their results).
    public var memberPlans: [QueryPlan] = []

    /// The name of the index the plan uses, or `nil` for a scan.
    public var indexName: String? {
        switch access {
        case .search(let search): search.index.description.name
        case .walk(let index): index.description.name
        case .related(let related):
            if case .index(let access) = related.destinations { "\(related.link.destination.name).\(access.index.description.name)" } else { nil }
        case .scan, .entryCount: nil
        }
    }

    /// True when the results are sorted in memory (fully, top-K, or each run
    /// of equal keys in the index's order).
    public var sortsInMemory: Bool { !sortDescriptors.isEmpty && (!isInSortOrder || orderedSorts < sortDescriptors.count) }

    public var description: String {
        if !memberPlans.isEmpty {
            var text = "FOR \(entityName) AND ITS SUB-ENTITIES: "
                + memberPlans.map { "[\($0.description)]" }.joined(separator: "; ") + ", MERGE"
            if !fetch.sorts.isEmpty { text += " SORTED BY " + fetch.request.sortDescriptors.map(\.description).joined(separator: ", ") }
            if let limit { text += ", LIMIT \(limit)" }
            if offset > 0 { text += ", OFFSET \(offset)" }
            return text
        }
        var parts: [String] = []
        switch access {
        case .scan:
            parts.append("SCAN \(entityName)" + (estimatedRows.map { " (\($0) objects)" } ?? ""))
        case .search(let search):
            let kind = search.index.description.isUnique ? "UNIQUE INDEX" : "INDEX"
            let conditions = search.terms.isEmpty ? fetch.request.predicate?.predicateFormat ?? "" : search.conditions.joined(separator: " AND ")
            var text = "SEARCH \(entityName) USING \(kind) \(search.index.description.name) (\(conditions))"
            if let estimatedRows { text += " (~\(estimatedRows) objects)" }
            parts.append(text)
        case .walk(let index):
            parts.append("WALK \(entityName) BY INDEX \(index.description.name)\(isReversed ? " DESC" : "")")
        case .entryCount:
            parts.append("COUNT \(entityName) FROM ENTRY COUNT")
        case .related(let related):
            var text = "SEARCH \(entityName) \(related.route) (\(related.condition))"
            if let estimatedRows { text += " (~\(estimatedRows) objects)" }
            parts.append(text)
        }
        if let filter = fetch.request.predicate {
            let checked: String? = switch access {
            case .search(let search) where search.coversPredicate: nil
            case .related(let related): related.residualFormat(of: filter)
            default: filter.predicateFormat
            }
            if let checked { parts.append("FILTER \(checked)") }
        }
        if !sortDescriptors.isEmpty {
            let sortText = sortDescriptors.map(\.description).joined(separator: ", ")
            if isInSortOrder {
                if case .search = access { parts.append("IN INDEX ORDER\(isReversed ? " DESC" : "")") }
                if orderedSorts < sortDescriptors.count {
                    parts.append("TIES BY " + sortDescriptors.dropFirst(orderedSorts).map(\.description).joined(separator: ", "))
                }
            } else if let topK {
                parts.append("TOP \(topK) BY \(sortText)")
            } else {
                parts.append("SORT BY \(sortText)")
            }
        } else if case .search(let search) = access, !(search.isUniqueLookup && search.lookupPrefixes.count <= 1) {
            parts.append("ORDER BY PRIMARY KEY")
        } else if case .related = access {
            parts.append("ORDER BY PRIMARY KEY")
        }
        if let limit { parts.append("LIMIT \(limit)") }
        if offset > 0 { parts.append("OFFSET \(offset)") }
        return parts.joined(separator: ", ")
    }
}
