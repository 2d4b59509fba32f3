import Foundation
import Kura
import KuraTestSupport

/// The classic Core Data `News` entity, written for Kura.
final class News: ManagedObject {
    @Attribute(.unique) var objectId: String = ""
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var imageURL: String?
    @Attribute var dateCreated: Date?
    @Attribute var dateUpdated: Date?
    @Attribute(.indexed) var sortOrder: Int = 0

    override func awakeFromInsert() {
        super.awakeFromInsert()
        objectId = UUID().uuidString
        dateCreated = Date()
    }

    override func willSave() {
        super.willSave()
        if !isDeleted { dateUpdated = Date() }
    }
}

/// Opens a container on a new store of the test's own: an LMDB file in the
/// test's directory, or, when `KURA_TEST_ENGINE` names another engine
/// (`memory`, `postgres`), a store on it (``TestEngine/underTest``). Tests
/// of what only a file has (its path, its bytes) use ``path``, which is LMDB's.
struct TestStore {
    let directory: TemporaryDirectory
    let path: String
    /// The store on the engine under test, when that isn't LMDB.
    private let other: EngineStore?

    /// A store on `engine`: give `.lmdb` for a test of what only the file
    /// has (its path, its bytes, its size, other processes opening it).
    init(engine: TestEngine = .underTest, function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        path = directory.file("test.kura")
        other = engine == .lmdb ? nil : try EngineStore(engine, function: function)
    }

    /// Where another process finds the store (see ``EngineStore/location``).
    var location: String { other?.location ?? path }

    /// The store's description, for opening it without a model.
    func description(options: StoreOptions = StoreOptions()) -> StoreDescription {
        other?.description(options: options) ?? .lmdb(path: path, options: options)
    }

    func open(_ model: ManagedObjectModel, options: StoreOptions = StoreOptions(),
              migration: MigrationOptions = .automatic) throws -> PersistentContainer {
        if let other { return try other.open(model, options: options, migration: migration) }
        return try PersistentContainer(path: path, model: model, options: options, migration: migration)
    }
}

extension ManagedObjectModel {
    static func news() throws -> ManagedObjectModel {
        try ManagedObjectModel(News.self)
    }
}
