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

/// Opens a container on a new store in the test's own directory.
struct TestStore {
    let directory: TemporaryDirectory
    let path: String

    init(function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        path = directory.file("test.kura")
    }

    func open(_ model: ManagedObjectModel, options: StoreOptions = StoreOptions(),
              migration: MigrationOptions = .automatic) throws -> PersistentContainer {
        try PersistentContainer(path: path, model: model, options: options, migration: migration)
    }
}

extension ManagedObjectModel {
    static func news() throws -> ManagedObjectModel {
        try ManagedObjectModel(News.self)
    }
}
