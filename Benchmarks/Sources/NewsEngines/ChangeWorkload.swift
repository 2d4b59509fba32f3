import Foundation
import Kura

/// The store behind the "changes that travel" rows: `Item`s in groups,
/// which saves change and observers watch, and `Other`s, which observers of
/// unrelated requests watch.
public enum ChangeWorkload {
    public static func model() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "group", type: .int64, defaultValue: .int(0)),
                AttributeDescription(name: "name", type: .string, defaultValue: .string("")),
                AttributeDescription(name: "revision", type: .int64, defaultValue: .int(0)),
            ], indexes: [IndexDescription(["group"])]),
            EntityDescription(name: "Other", attributes: [
                AttributeDescription(name: "name", type: .string, defaultValue: .string("")),
            ]),
        ])
        // The request every save and observation makes, registered once as
        // an app would (and as raw engines keep their SQL): a fetch fills
        // in the group instead of parsing a predicate each time.
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "Item", predicate: "group == $group").sorted(by: "name"), forName: "itemsOfGroup")
        return model
    }

    /// Opens (creating) the store in `directory`.
    public static func open(_ directory: String, tracksHistory: Bool = false) throws -> PersistentContainer {
        var options = StoreOptions()
        options.tracksHistory = tracksHistory
        return try PersistentContainer(path: directory + "/changes.kura", model: model(), options: options)
    }

    /// Inserts `count` items, `perGroup` to a group, and one Other.
    public static func fill(_ container: PersistentContainer, count: Int, perGroup: Int = 10) throws {
        let context = container.newContext()
        for number in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(.int(Int64(number / perGroup)), forKey: "group")
            try item.setValue(.string("item \(number)"), forKey: "name")
        }
        try context.insertNewObject(forEntityName: "Other").setValue(.string("other"), forKey: "name")
        try context.save()
    }

    /// The items of group `group`, by name, from the model's template.
    public static func group(_ group: Int, in model: ManagedObjectModel) throws -> FetchRequest<ManagedObject> {
        try model.fetchRequestFromTemplate(withName: "itemsOfGroup", substitutionVariables: ["group": group])
    }

    /// Every Other.
    public static let others = FetchRequest(entityName: "Other")

    /// Bumps the revision of the first item of `group` and saves.
    public static func touch(group: Int, in context: ManagedObjectContext) throws {
        let item = try context.fetch(try self.group(group, in: context.model).limited(to: 1))[0]
        try item.setValue(.int(try item.value(forKey: "revision", as: Int64.self) + 1), forKey: "revision")
        try context.save()
    }
}

extension ChangeWorkload {
    /// `saves` saves, each adding one to the revision of the first item of
    /// group 0 or 1 (alternating from `worker`), which other processes
    /// change too: a conflict is retried in a new context. Returns the
    /// conflicts retried.
    public static func concurrentSaves(_ container: PersistentContainer, saves: Int, worker: Int) throws -> Int {
        var conflicts = 0
        for save in 0..<saves {
            while true {
                do {
                    try touch(group: (save + worker) % 2, in: container.newContext())
                    break
                } catch let error as KuraError where error.code == .conflict {
                    conflicts += 1
                }
            }
        }
        return conflicts
    }

    /// The sum of every item's revision: the saves made, when none was lost.
    public static func revisionSum(_ container: PersistentContainer) throws -> Int {
        try container.newContext().fetch(FetchRequest(entityName: "Item")).reduce(0) {
            $0 + Int(try $1.value(forKey: "revision", as: Int64.self))
        }
    }
}
