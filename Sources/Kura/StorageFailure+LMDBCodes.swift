import KuraCore

// The failures only the LMDB engine meets: codes of its own, defined with
// the engine (KuraCore knows none of them).

extension StorageFailure.Code {
    /// The store file has several hard links (`number` is how many).
    public static let hardLinked = Self(rawValue: "hardLinked")
    /// This process has the store open already.
    public static let alreadyOpen = Self(rawValue: "alreadyOpen")
    /// The map had to grow while this thread was inside another transaction on the store.
    public static let mapChangeInsideTransaction = Self(rawValue: "mapChangeInsideTransaction")
    /// Every reader slot of the store is taken.
    public static let tooManyReaders = Self(rawValue: "tooManyReaders")
}

extension StorageFailure {
    /// The store file has `links` hard links: processes opening it under
    /// different names would not share a lock, so it is refused.
    public static func hardLinked(links: Int) -> StorageFailure {
        StorageFailure(
            code: .hardLinked,
            message: "the file has \(links) hard links, so processes opening it by different names would not share one lock; "
                + "remove the extra links (symbolic links are fine)",
            number: links)
    }

    /// This process has the store open already; share that container.
    public static let alreadyOpen = StorageFailure(
        code: .alreadyOpen, message: "the store is already open in this process; share its container")

    /// The map had to change size while this thread was inside another
    /// transaction on the same store (a save from inside a fetch's hook, for
    /// example). Finish the outer work first.
    public static let mapChangeInsideTransaction = StorageFailure(
        code: .mapChangeInsideTransaction,
        message: "the store's map must change size, which can't happen while this thread is inside another transaction on it")

    /// Every reader slot of the store is taken (`StoreOptions.maxReaders`).
    public static let tooManyReaders = StorageFailure(code: .tooManyReaders, message: "every reader slot of the store is taken")
}
