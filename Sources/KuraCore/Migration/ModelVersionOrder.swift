/// Where a model stands against the model a store holds: what decides
/// whether opening the store with it may migrate the store.
///
/// An older build of an app must never migrate a store a newer build wrote
/// back to its own model: the newer build's attributes, relationships and
/// entities (and the data in them) would be dropped. A model is older when
/// the store's own record says so:
///
/// - both models have a ``ManagedObjectModel/versionIdentifier`` and the
///   given one sorts before the stored one, compared as version numbers
///   (``ModelVersionOrder/compare(_:_:)``: `"2"` < `"10"`, `"1.9"` < `"1.10"`,
///   `"2026-11"` < `"2026-12"`);
/// - or the store's model history (``PersistentStore/modelHistory()``) lists
///   the given model (its version identifier, or, without one, its
///   fingerprint) as a version the store had *before* the current one.
///
/// A model whose version identifier sorts after the stored one is newer;
/// otherwise (no identifiers, a schema never seen) the order is unknown.
enum ModelVersionOrder: Equatable {
    case older
    case newer
    case unknown

    /// Where `model` stands against `stored`, a store's current model,
    /// given the store's model `history` (oldest first).
    init(of model: ManagedObjectModel, against stored: ManagedObjectModel, history: [ModelHistoryEntry]) {
        if let given = model.versionIdentifier, let current = stored.versionIdentifier, given != current {
            self = Self.compare(given, current) < 0 ? .older : .newer
            return
        }
        // The entries before the one the store is at now.
        let current = history.lastIndex { $0.fingerprint == stored.fingerprint } ?? history.endIndex
        let earlier = history[..<current]
        if let given = model.versionIdentifier {
            if earlier.contains(where: { $0.version == given }) {
                self = .older
            } else {
                // The first version with an identifier, on a store that had none.
                self = stored.versionIdentifier == nil ? .newer : .unknown
            }
            return
        }
        let seenBefore = model.fingerprint != stored.fingerprint && earlier.contains { $0.fingerprint == model.fingerprint }
        self = seenBefore ? .older : .unknown
    }

    /// Compares two version identifiers as version numbers: runs of digits
    /// by their value, the text between them character by character.
    /// Negative when `a` comes first, zero when they are equal, positive otherwise.
    static func compare(_ a: String, _ b: String) -> Int {
        let left = runs(a)
        let right = runs(b)
        for (x, y) in zip(left, right) {
            let order: Int
            switch (x, y) {
            case (.number(let p), .number(let q)):
                // Leading zeros don't count; then the longer run is the larger number.
                let p = p.drop { $0 == "0" }
                let q = q.drop { $0 == "0" }
                order = p.count != q.count ? (p.count < q.count ? -1 : 1) : (p == q ? 0 : (p < q ? -1 : 1))
            case (.number, .text): order = -1
            case (.text, .number): order = 1
            case (.text(let p), .text(let q)): order = p == q ? 0 : (p < q ? -1 : 1)
            }
            if order != 0 { return order }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    private enum Run {
        case number(Substring)
        case text(Substring)
    }

    private static func runs(_ text: String) -> [Run] {
        var runs: [Run] = []
        var start = text.startIndex
        while start < text.endIndex {
            let isDigit = text[start].isASCII && text[start].isNumber
            let end = text[start...].firstIndex { ($0.isASCII && $0.isNumber) != isDigit } ?? text.endIndex
            runs.append(isDigit ? .number(text[start..<end]) : .text(text[start..<end]))
            start = end
        }
        return runs
    }
}

extension ModelHistoryEntry {
    /// The version as people name it: its identifier and fingerprint.
    static func describe(version: String?, fingerprint: String) -> String {
        version.map { "version \($0) (fingerprint \(fingerprint))" } ?? "a model without a versionIdentifier (fingerprint \(fingerprint))"
    }
}
