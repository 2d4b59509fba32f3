// KuraLMDB walks key ranges of KuraKeys (re-exported: `import KuraLMDB` is enough).
@_exported import KuraKeys

extension Database {
    /// Calls `body` for each entry in `range`, in key order or reverse key
    /// order, until `body` returns `false` or the range ends.
    ///
    /// ```swift
    /// try environment.read { txn in
    ///     try index.forEach(in: txn, range: .prefix([0x01]), direction: .reverse) { entry in
    ///         print(Array(entry.key))
    ///         return true   // keep going
    ///     }
    /// }
    /// ```
    ///
    /// The entry's bytes are valid only during the call for that entry.
    /// - Complexity: O(log n) to find the start, then O(1) per entry.
    public func forEach(
        in txn: borrowing Transaction,
        range: KeyRange = .all,
        direction: IterationDirection = .forward,
        _ body: (Entry) throws -> Bool
    ) throws {
        try withCursor(in: txn) { cursor in
            switch direction {
            case .forward:
                var entry: Entry?
                if let lower = range.lower {
                    entry = try cursor.seek(to: lower.key)
                    if let found = entry, !lower.isInclusive, compareKeys(found.key, lower.key) == 0 {
                        entry = try cursor.next()
                    }
                } else {
                    entry = try cursor.first()
                }
                while let current = entry, range.isBelowUpper(current.key) {
                    guard try body(current) else { return }
                    entry = try cursor.next()
                }
            case .reverse:
                var entry: Entry?
                if let upper = range.upper {
                    // The first key >= upper; step back unless it is upper itself and included.
                    if let found = try cursor.seek(to: upper.key) {
                        let order = compareKeys(found.key, upper.key)
                        entry = (order == 0 && upper.isInclusive) ? found : try cursor.previous()
                    } else {
                        entry = try cursor.last()
                    }
                } else {
                    entry = try cursor.last()
                }
                while let current = entry, range.isAboveLower(current.key) {
                    guard try body(current) else { return }
                    entry = try cursor.previous()
                }
            }
        }
    }
}

extension KeyRange {
    /// True when `key` is at or above the lower bound.
    func isAboveLower(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let lower else { return true }
        let order = compareKeys(key, lower.key)
        return order > 0 || (order == 0 && lower.isInclusive)
    }

    /// True when `key` is at or below the upper bound.
    func isBelowUpper(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let upper else { return true }
        let order = compareKeys(key, upper.key)
        return order < 0 || (order == 0 && upper.isInclusive)
    }
}
