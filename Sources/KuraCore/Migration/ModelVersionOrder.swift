/// Where a model stands against the model a store holds: what decides
/// whether opening the store with it may migrate the store.
///
/// An older build of an app must never migrate a store a newer build wrote
/// back to its own model: the newer build's attributes, relationships and
/// entities (and the data in them) would be dropped. A model is older when
/// the store's own record says so:
///
/// - both models have a ``ManagedObjectModel/versionIdentifier`` and the
///   given one is an earlier version than the stored one, ordered as
///   semantic versioning orders them (``ModelVersion``: `"2"` < `"10"`,
///   `"1.9"` < `"1.10"`, `"1.0-beta"` < `"1.0"`);
/// - or the store's model history (``PersistentStore/modelHistory()``) lists
///   the given model (its version, or, without one, its fingerprint) as a
///   version the store had *before* the current one.
///
/// A model whose version is later than the stored one is newer, which
/// authorises its migration to remove what it left out. Otherwise (no
/// identifiers, the same version under another spelling or another schema,
/// a stored identifier that isn't a version) the order is unknown, and
/// nothing that holds data is removed.
enum ModelVersionOrder: Equatable {
    case older
    case newer
    case unknown

    /// Where `model` stands against `stored`, a store's current model,
    /// given the store's model `history` (oldest first). `model`'s
    /// identifier, if any, is a version (``ManagedObjectModel/checkVersionIdentifier()``).
    init(of model: ManagedObjectModel, against stored: ManagedObjectModel, history: [ModelHistoryEntry]) {
        let given = model.versionIdentifier.flatMap(ModelVersion.init)
        if let given, let current = stored.versionIdentifier.flatMap(ModelVersion.init), given != current {
            self = given < current ? .older : .newer
            return
        }
        // The entries before the one the store is at now.
        let current = history.lastIndex { $0.fingerprint == stored.fingerprint } ?? history.endIndex
        let earlier = history[..<current]
        if let given {
            if earlier.contains(where: { $0.version.flatMap(ModelVersion.init) == given }) {
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

    /// True when two identifiers name the same version (spelled alike, or
    /// equal as ``ModelVersion``s).
    static func isSameVersion(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        guard let x = ModelVersion(a), let y = ModelVersion(b) else { return false }
        return x == y
    }
}

extension ModelHistoryEntry {
    /// The version as people name it: its identifier and fingerprint.
    static func describe(version: String?, fingerprint: String) -> String {
        version.map { "version \($0) (fingerprint \(fingerprint))" } ?? "a model without a versionIdentifier (fingerprint \(fingerprint))"
    }
}
