/// Codes as `catch` patterns, as GRDB's `catch DatabaseError.SQLITE_CONSTRAINT`:
///
/// ```swift
/// do {
///     try context.save()
/// } catch KuraError.Code.conflict {
///     context.refreshAllObjects()
/// } catch StorageFailure.Code.diskFull {
///     print("free some disk space and save again: nothing was lost")
/// }
/// ```
///
/// Bind the error (`catch let error as KuraError where error.code == …`)
/// when you need what it carries.
extension KuraError.Code {
    /// True when `error` is a ``KuraError`` of this code.
    public static func ~= (code: KuraError.Code, error: any Error) -> Bool {
        (error as? KuraError)?.code == code
    }
}

extension StorageFailure.Code {
    /// True when `error` is a ``StorageFailure`` of this code, or a
    /// ``KuraError`` (``KuraError/Code/storage``) that carries one.
    public static func ~= (code: StorageFailure.Code, error: any Error) -> Bool {
        if let failure = error as? StorageFailure { return failure.code == code }
        return (error as? KuraError)?.storageFailure?.code == code
    }
}
