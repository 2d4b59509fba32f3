import Foundation
import Kura

/// Stores with ordered to-manys: `List`s (`name`; ordered `items`, the
/// inverse of `Item.list`; `tags`, many-to-many with `Item.taggedIn`;
/// ordered `picks`, no inverse) and `Item`s (`name`). The model of
/// `format3-ordered.kura`, and of the ordered-list upgrade crash test.
public enum OrderedListWorkload {
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "List", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toMany("items", destination: "Item", inverse: "list", isOrdered: true),
                .toMany("tags", destination: "Item", inverse: "taggedIn"),
                .toMany("picks", destination: "Item", isOrdered: true),
            ]),
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toOne("list", destination: "List"),
                .toMany("taggedIn", destination: "List", inverse: "tags"),
            ]),
        ])
    }

    /// List `list`'s items, as item numbers in order: its `length` items
    /// shuffled (`i * 7919 % length`); its picks are the same, reversed.
    public static func items(of list: Int, length: Int) -> [Int] {
        (0..<length).map { list * length + $0 * 7919 % length }
    }

    /// `lists` lists (`list 0` …) of `length` items each (`item N`), in one save.
    public static func fill(_ container: PersistentContainer, lists: Int, length: Int) throws {
        let context = container.newContext()
        var items: [ManagedObject] = []
        for number in 0..<(lists * length) {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(.string("item \(number)"), forKey: "name")
            items.append(item)
        }
        for number in 0..<lists {
            let list = try context.insertNewObject(forEntityName: "List")
            try list.setValue(.string(String(format: "list %03d", number)), forKey: "name")
            let order = Self.items(of: number, length: length).map { items[$0] }
            try list.mutableSetValue(forKey: "items").set(order)
            try list.mutableSetValue(forKey: "picks").set(order.reversed())
        }
        try context.save()
    }

    /// Each list's ordered relationship `key` (`items` or `picks`) as item numbers, lists by name.
    public static func orders(_ context: ManagedObjectContext, _ key: String) throws -> [[Int]] {
        let lists = try context.fetch(FetchRequest(entityName: "List").sorted(by: "name"))
        return try lists.map { list in
            try list.objects(forKey: key).map { Int(try $0.value(forKey: "name", as: String.self).dropFirst(5))! }
        }
    }
}
