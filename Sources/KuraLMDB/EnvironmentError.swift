/// An error about an environment as a whole: it could not be opened, or an
/// operation on it is not possible in its present state.
///
/// Errors from individual LMDB calls are ``LMDBError``; this type wraps one
/// where the path matters, so the message says which file was at fault.
public enum EnvironmentError: Error, Hashable, Sendable {
    /// The file could not be opened as an LMDB environment.
    case cannotOpen(path: String, reason: LMDBError)
    /// The file exists but is empty, so it is not an LMDB environment.
    ///
    /// LMDB would silently initialize it; a file someone created by other means
    /// is more likely a mistake than a new store.
    case emptyFile(path: String)
    /// The file is shorter than its own header says: it was truncated, and
    /// reading it would touch pages that are not there.
    case truncated(path: String, expectedBytes: Int, actualBytes: Int)
    /// This process already has the environment open. LMDB forbids opening one
    /// environment twice in a process: closing either copy would release the
    /// other's locks.
    case alreadyOpen(path: String)
    /// The map is full and must grow, but this thread holds another transaction
    /// on the same environment, and the map can only be resized when none is
    /// active. Finish the outer transaction before writing.
    case cannotGrowWithOpenTransaction(path: String)
    /// The path names something other than a regular file (a directory, a
    /// FIFO, a device, a socket); `kind` says what. Nothing was opened.
    case notARegularFile(path: String, kind: String)
    /// The store file has more than one hard link. LMDB names its lock file
    /// after the path, so two links would get two lock files and two writers
    /// at once; such a file is refused. (Symbolic links are resolved and safe.)
    case hardLinked(path: String, links: Int)
    /// A write was attempted on an environment opened read-only.
    case readOnly(path: String)
    /// The environment was closed; no transaction can start on it.
    case closed(path: String)
}

extension EnvironmentError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open '\(path)': \(reason)"
        case .emptyFile(let path):
            "cannot open '\(path)': the file is empty, so it is not an LMDB environment"
        case .truncated(let path, let expected, let actual):
            "cannot open '\(path)': the file is truncated (its header needs \(expected) bytes, the file has \(actual))"
        case .alreadyOpen(let path):
            "'\(path)' is already open in this process; share the open environment instead of opening it again"
        case .cannotGrowWithOpenTransaction(let path):
            "the map of '\(path)' is full and cannot grow while this thread holds another transaction on it"
        case .notARegularFile(let path, let kind):
            "cannot open '\(path)': it is \(kind), not a store file"
        case .hardLinked(let path, let links):
            "cannot open '\(path)': the file has \(links) hard links, so processes opening it by different names "
                + "would not share one lock; remove the extra links (symbolic links are fine)"
        case .readOnly(let path):
            "'\(path)' was opened read-only; it cannot be written"
        case .closed(let path):
            "'\(path)' is closed"
        }
    }
}
