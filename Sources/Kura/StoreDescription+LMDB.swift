import KuraCore

// The embedded LMDB store, as the app names it: a path.

extension StoreDescription {
    /// The store in the LMDB file at `path`, created when it doesn't exist
    /// (unless `options` say read-only). LMDB keeps a lock file beside it,
    /// at `path-lock`; its directory must exist.
    public static func lmdb(path: String, options: StoreOptions = StoreOptions()) -> StoreDescription {
        StoreDescription(options: options) { model in try LMDBEngine(path: path, options: options, model: model) }
    }
}

extension PersistentStore {
    /// Opens the store in the LMDB file at `path`, creating it when it
    /// doesn't exist (unless read-only).
    ///
    /// - Parameters:
    ///   - path: The store file; its directory must exist. LMDB keeps a lock
    ///     file next to it, at `path-lock`.
    ///   - model: The model the app expects, or `nil` to use the store's own
    ///     (a new store needs a model).
    ///   - options: Sizes, durability, read-only.
    ///   - migration: Whether and how a store of an older model is migrated
    ///     (`MigrationOptions/automatic` by default).
    /// - Throws: `KuraError/notAKuraStore(path:)`,
    ///   `KuraError/unsupportedFormatVersion(path:found:supported:)`,
    ///   `KuraError/modelMismatch(path:differences:)`,
    ///   `KuraError/corruptStore(path:reason:)`, or
    ///   `KuraError/storage(path:failure:)` when LMDB can't open the file.
    public convenience init(
        path: String, model: ManagedObjectModel?, options: StoreOptions = StoreOptions(),
        migration: MigrationOptions = .automatic
    ) throws {
        try self.init(.lmdb(path: path, options: options), model: model, migration: migration)
    }
}

extension PersistentContainer {
    /// Opens (or creates) the store at `path` for `model`, migrating a store
    /// made with an earlier version of the model (see "Changing your model"
    /// in the README, and `MigrationOptions`).
    ///
    /// - Throws: see `PersistentStore/init(path:model:options:migration:)`;
    ///   notably `KuraError/migrationFailed(path:failures:)` when a
    ///   migration can't be made (the store is unchanged), and
    ///   `KuraError/modelMismatch(path:differences:)` when the store's model
    ///   differs and migration is off or the store is read-only.
    public convenience init(path: String, model: ManagedObjectModel, options: StoreOptions = StoreOptions(),
                migration: MigrationOptions = .automatic) throws {
        try self.init(store: .lmdb(path: path, options: options), model: model, migration: migration)
    }

    /// Opens an existing store with the model it keeps, without the app's
    /// classes: its objects are plain `ManagedObject`s, used through
    /// `ManagedObject/value(forKey:)`. This is how `kura inspect` opens any store.
    public convenience init(path: String, options: StoreOptions = StoreOptions()) throws {
        try self.init(store: .lmdb(path: path, options: options))
    }
}
