#if PostgreSQL
import KuraCore

extension StorageFailure.Code {
    /// The database server can't be reached, or the connection to it was lost.
    public static let serverUnavailable = Self(rawValue: "serverUnavailable")
}

extension StorageFailure {
    /// The database server can't be reached, or the connection to it was
    /// lost; `reason` says why. A save that meets it has written nothing
    /// (the server rolls an unfinished transaction back) and the context
    /// keeps its changes; the store connects again on its next use.
    public static func serverUnavailable(_ reason: String) -> StorageFailure {
        StorageFailure(code: .serverUnavailable, message: "the database server is unavailable: \(reason)")
    }
}
#endif
