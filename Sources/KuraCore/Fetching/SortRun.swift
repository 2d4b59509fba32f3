/// Records that arrive in a fetch's sort order, except that records with
/// equal sort keys come in index order: the current run of equal keys,
/// handed on in primary-key order once it ends.
///
/// A forward walk of an index whose keys are the sort's finds each run in
/// primary-key order already (index keys end with the primary key); a
/// reverse walk, or an index with more keys than the sort, doesn't. Only
/// a run that came out of order is sorted.
///
/// When the index gives only the first of the sorts (`ordered` of them:
/// `dateCreated` of `dateCreated, objectId`), a run is the records equal
/// in those, and it is sorted by all the sorts as it ends (an incremental
/// sort): a window of 20 reads its 20 records and the rest of the last
/// run, not the whole range.
struct SortRun {
    /// Tells where a run ends: the sorts the index order gives.
    private let ordering: RowOrdering
    /// All the sorts, when the index gives only the first of them.
    private let fullOrdering: RowOrdering?
    private let entity: EntityDescription
    private let graph: PredicateGraph?
    /// The attribute of a fetch sorted by one number (Bool, integer,
    /// floating-point, date): its runs are told apart by ordered bits, no
    /// ``SortKeys`` made.
    private let numeric: Int?
    private var rows: [(primaryKey: UInt64, view: RecordView)] = []
    private var isOrdered = true
    private var bits: UInt64?
    private var keys = SortKeys.none

    init(sorts: [PreparedSort], ordered: Int? = nil, entity: EntityDescription, graph: PredicateGraph?) {
        let runSorts = Array(sorts.prefix(ordered ?? sorts.count))
        ordering = RowOrdering(sorts: runSorts)
        fullOrdering = runSorts.count < sorts.count ? RowOrdering(sorts: sorts) : nil
        self.entity = entity
        self.graph = graph
        numeric = NumericTopK<RecordView>.numericSort(runSorts, of: entity)?.number
    }

    /// Adds a record; first, when its sort keys end the current run, hands
    /// on that run (see ``flush(upTo:_:)``) and returns how many it handed on.
    mutating func add(
        _ primaryKey: UInt64, _ view: RecordView, limit: Int?, _ body: (UInt64, RecordView) throws -> Void
    ) throws -> Int {
        var handedOn = 0
        if let numeric {
            let bits = view.orderedSortBits(numeric, of: entity)
                ?? SortKey(view.value(numeric, of: entity), comparison: .compare).orderedBits
            if !rows.isEmpty && bits != self.bits { handedOn = try flush(upTo: limit, body) }
            self.bits = bits
        } else {
            let keys = try ordering.keys(of: RecordSource(view: view, entity: entity, primaryKey: primaryKey, graph: graph))
            if !rows.isEmpty && !ordering.sameKeys(keys, self.keys) { handedOn = try flush(upTo: limit, body) }
            self.keys = keys
        }
        if let last = rows.last, last.primaryKey > primaryKey { isOrdered = false }
        rows.append((primaryKey, view))
        return handedOn
    }

    /// Hands on the current run in primary-key order, at most `limit` of
    /// it, and returns how many it handed on.
    mutating func flush(upTo limit: Int?, _ body: (UInt64, RecordView) throws -> Void) throws -> Int {
        if let fullOrdering, rows.count > 1 {
            var sortable = try rows.map { row in
                SortableRow(keys: try fullOrdering.keys(of: RecordSource(view: row.view, entity: entity, primaryKey: row.primaryKey, graph: graph)),
                            tier: 0, number: row.primaryKey, payload: row.view)
            }
            fullOrdering.sort(&sortable)
            rows = sortable.map { ($0.number, $0.payload) }
        } else if !isOrdered {
            rows.sort { $0.primaryKey < $1.primaryKey }
        }
        let count = min(rows.count, limit ?? .max)
        for (primaryKey, view) in rows.prefix(count) { try body(primaryKey, view) }
        rows.removeAll(keepingCapacity: true)
        isOrdered = true
        return count
    }
}
