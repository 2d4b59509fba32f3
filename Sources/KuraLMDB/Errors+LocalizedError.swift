import Foundation

extension LMDBError: LocalizedError {
    /// The same text as ``description``, so `localizedDescription` reads well.
    public var errorDescription: String? { description }
}

extension EnvironmentError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
