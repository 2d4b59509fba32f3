import Foundation
import KuraCore
import KuraLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kura's embedded engine: one LMDB file, each space a named database.
///
/// Reads are zero-copy (values are lent straight from the memory map), the
/// map grows by itself when a write fills it, and every process that opens
/// the file shares one lock, so they see each other's commits at once.
final class LMDBEngine: StorageEngine {
    let path: String
    let options: StoreOptions
    /// Replaced only by ``reserve(spaces:)``, while the store opens and no
    /// one else has the engine yet.
    nonisolated(unsafe) private(set) var environment: Environment

    var location: String { path }
    var isReadOnly: Bool { environment.isReadOnly }

    /// Opens the LMDB file at `path`, created when it doesn't exist (unless
    /// read-only), with room for the spaces of `model`.
    init(path: String, options: StoreOptions, model: ManagedObjectModel?) throws {
        var environmentOptions = Environment.Options(
            mapSize: options.lmdb.initialSize, maxMapSize: options.lmdb.maximumSize,
            maxDatabases: Self.databaseCount(for: model), maxReaders: options.lmdb.maxReaders)
        if options.isReadOnly { environmentOptions.flags.insert(.readOnly) }
        switch options.lmdb.durability {
        case .full: break
        case .noMetaSync: environmentOptions.flags.insert(.noMetaSync)
        case .noSync: environmentOptions.flags.insert(.noSync)
        }
        do {
            environment = try Self.openEnvironment(path: path, options: environmentOptions)
        } catch let error as KuraError where options.isReadOnly && options.lmdb.allowsReadingWithoutLock
            && error.storageFailure.map({ Self.cannotHaveALockFile(path, failure: $0) }) == true {
            environmentOptions.flags.insert(.noLock)
            environment = try Self.openEnvironment(path: path, options: environmentOptions)
        }
        self.path = path
        self.options = options
        // Reader slots of processes that died holding a snapshot would keep
        // old pages from being reused: clear them now.
        _ = try? environment.clearStaleReaders()
    }

    /// Makes room for the spaces of `model` and `other` open at once (a
    /// migration has both), reopening the file when LMDB's table of named
    /// databases is too small. Only while the store opens.
    func prepare(toOpen model: ManagedObjectModel, alongside other: ManagedObjectModel?) throws {
        let needed = Self.databaseCount(for: model) + (other.map { Self.databaseCount(for: $0) } ?? 0)
        guard needed > environment.options.maxDatabases else { return }
        var environmentOptions = environment.options
        environmentOptions.maxDatabases = needed
        environment.close()
        environment = try translatingErrors { try Self.openEnvironment(path: path, options: environmentOptions) }
    }

    func close() {
        environment.close()
    }

    // MARK: Transactions

    func performRead(_ body: (any StorageTransaction) throws -> Void) throws {
        do {
            try environment.read { txn in try body(LMDBTransaction(txn.unsafeHandle)) }
        } catch {
            throw translated(error)
        }
    }

    func performSingleRequestRead(_ body: (any StorageTransaction) throws -> Void) throws {
        try performRead(body)
    }

    func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
        try translatingErrors {
            try environment.write { txn in try body(LMDBTransaction(txn.unsafeHandle)) }
        }
    }

    func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws {
        try translatingErrors {
            try environment.readCheckingStructure(databases: spaces, problemLimit: 3) { txn, report in
                guard report.isIntact(database: nil) && report.problemCount == 0 else {
                    throw KuraError.corruptStore(path: path, reason: report.problems.joined(separator: "; "))
                }
                try body(LMDBTransaction(txn.unsafeHandle))
            }
        }
    }

    func space(named name: String) throws -> StorageSpace? {
        try translatingErrors { try environment.database(named: name).map { StorageSpace(number: $0.handle) } }
    }

    func latestCommit() throws -> Int {
        try translatingErrors { try environment.read { $0.id } }
    }

    func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
        try CommitMonitor(path: path, transactionID: { [weak self] in try? self?.latestCommit() }) { onCommit(ReportedCommit(number: $0)) }
    }

    /// Runs `body`, turning LMDB's errors into Kura's, naming the file.
    func translatingErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw translated(error)
        }
    }

    /// Kura's error for an error of LMDB's (others are returned as they are).
    private func translated(_ error: any Error) -> any Error {
        if case LMDBError.mapFull = error { return KuraError.storeFull(maximumBytes: options.lmdb.maximumSize) }
        return KuraError.storage(error, path: path)
    }

    // MARK: Opening

    /// Room for the meta database, every entity's records, indexes and
    /// relationships, with some to spare; at least 128.
    private static func databaseCount(for model: ManagedObjectModel?) -> Int {
        guard let model else { return 128 }
        return max(128, StoreLayout.spaceCount(for: model) + 16)
    }

    private static func openEnvironment(path: String, options: Environment.Options) throws -> Environment {
        do {
            return try Environment(path: path, options: options)
        } catch let error as EnvironmentError {
            switch error {
            case .cannotOpen(_, .invalid), .cannotOpen(_, .versionMismatch), .emptyFile:
                throw KuraError.notAKuraStore(path: path)
            case .truncated:
                throw KuraError.corruptStore(path: path, reason: error.description)
            default:
                throw KuraError.storage(error, path: path)
            }
        }
    }

    /// True when no lock file is beside the store and none can be made:
    /// this user can't write the directory, or the file system is full.
    /// (No lock file: no process has the store open.)
    private static func cannotHaveALockFile(_ path: String, failure: StorageFailure) -> Bool {
        guard access(path + "-lock", F_OK) != 0 else { return false }
        switch failure.code {
        case .diskFull: return true
        case .permissionDenied:
            let directory = (path as NSString).deletingLastPathComponent
            return access(directory.isEmpty ? "." : directory, W_OK) != 0
        default: return false
        }
    }
}
