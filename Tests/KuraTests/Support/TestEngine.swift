import Foundation
import Kura
@testable import KuraCore
#if PostgreSQL
import KuraPostgres
#endif
import KuraTestSupport
import Testing

/// The engines the store suite runs on (``StorageEngineTests``).
enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case lmdb
    case memory
    case postgres

    var testDescription: String { rawValue }

    /// The engines this build has: PostgreSQL's with the PostgreSQL trait
    /// only (`swift test --traits PostgreSQL`, as `Scripts/test-postgres` runs).
    static let built: [TestEngine] = [.lmdb, .memory] + servers

    /// PostgreSQL when this build has it, else nothing.
    static var servers: [TestEngine] {
        #if PostgreSQL
        [.postgres]
        #else
        []
        #endif
    }

    /// The engine the suite's stores are on (`KURA_TEST_ENGINE`; LMDB when unset).
    static let underTest: TestEngine = {
        guard let name = ProcessInfo.processInfo.environment["KURA_TEST_ENGINE"] else { return .lmdb }
        guard let engine = TestEngine(rawValue: name) else { fatalError("KURA_TEST_ENGINE=\(name): lmdb, memory or postgres") }
        guard built.contains(engine) else { fatalError("KURA_TEST_ENGINE=\(name): this build has no PostgreSQL store; build with --traits PostgreSQL") }
        return engine
    }()
}

/// A store of a parameterized test on one engine: a file in the test's own
/// directory for LMDB; for memory, one engine kept for the test's life, so
/// the store can be opened again (with another model, for instance).
final class EngineStore {
    let engine: TestEngine
    let directory: TemporaryDirectory
    private let memory: InMemoryEngine
    /// The test's own database, on the test process's server.
    private let postgresURL: String?

    init(_ engine: TestEngine, function: String = #function) throws {
        self.engine = engine
        directory = try TemporaryDirectory(function: function)
        memory = InMemoryEngine(name: function)
        #if PostgreSQL
        postgresURL = engine == .postgres ? try PostgresTestServer.shared.get().newDatabase() : nil
        #else
        postgresURL = nil
        #endif
    }

    /// Where another process finds the store: the LMDB file's path or the
    /// PostgreSQL database's URL (the memory engine can't be shared).
    var location: String {
        switch engine {
        case .lmdb: directory.file("test.kura")
        case .memory: preconditionFailure("a store in memory can't be opened by another process")
        case .postgres: postgresURL!
        }
    }

    /// The store's description on this engine.
    func description(options: StoreOptions = StoreOptions()) -> StoreDescription {
        switch engine {
        case .lmdb: .lmdb(path: directory.file("test.kura"), options: options)
        case .memory: StoreDescription(options: options) { [memory] _ in memory }
        case .postgres:
            #if PostgreSQL
            .postgres(url: postgresURL!, options: options)
            #else
            preconditionFailure("this build has no PostgreSQL store (TestEngine.built)")
            #endif
        }
    }

    func open(_ model: ManagedObjectModel, options: StoreOptions = StoreOptions(),
              migration: MigrationOptions = .automatic) throws -> PersistentContainer {
        let container = try PersistentContainer(store: description(options: options), model: model, migration: migration)
        #expect(container.store.path.hasPrefix("memory:") == (engine == .memory), "on the engine asked for")
        #expect(container.store.path.hasPrefix("postgres:") == (engine == .postgres), "on the engine asked for")
        return container
    }

    /// Lets `container` go and opens the store again with `model`: LMDB's
    /// file is closed first (a process opens it once), and PostgreSQL's
    /// connections; the memory engine stays open, since closing it ends the store.
    func reopen(_ container: PersistentContainer, _ model: ManagedObjectModel, options: StoreOptions = StoreOptions(),
                migration: MigrationOptions = .automatic) throws -> PersistentContainer {
        if engine != .memory { container.close() }
        return try open(model, options: options, migration: migration)
    }
}
