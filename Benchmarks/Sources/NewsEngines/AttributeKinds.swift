import Foundation
import Kura

/// A news item's state, stored by raw value.
public enum StoryState: String, Codable, AttributeValueConvertible {
    case draft, review, published, archived
}

/// A news item's place, stored as JSON.
public struct StoryPlace: Codable, Hashable, AttributeValueConvertible {
    public var city: String
    public var country: String
}

/// One object per row of the attribute-kinds suite: the same text as a
/// `String`, as an enumeration's raw value and inside a `Codable` value,
/// so reading each costs what its kind costs.
final class KindRecord: ManagedObject {
    @Attribute var text: String = ""
    @Attribute var state: StoryState = .draft
    @Attribute var place: StoryPlace = StoryPlace(city: "", country: "")
}

/// Kura reading attributes of each kind: a String, an enumeration, a
/// Codable value (issue 39: the last two within 1.3 times the first).
public final class AttributeKindsEngine {
    let container: PersistentContainer

    public init(directory: String) throws {
        var options = StoreOptions()
        options.initialSize = 1 << 30
        container = try PersistentContainer(path: directory + "/kinds.kura", model: ManagedObjectModel(KindRecord.self), options: options)
    }

    deinit { container.close() }

    /// Inserts `count` objects, cycling through the states.
    public func fill(count: Int) throws {
        let context = container.newContext()
        let states: [StoryState] = [.draft, .review, .published, .archived]
        let cities = ["Kyoto", "Osaka", "Lyon", "Porto"]
        for number in 0..<count {
            let record = KindRecord(context: context)
            let state = states[number % states.count]
            record.text = state.rawValue
            record.state = state
            record.place = StoryPlace(city: cities[number % cities.count], country: "JP")
        }
        try context.save()
    }

    /// Fetches every object and reads the String attribute: the sum of its lengths.
    public func readStrings() throws -> Int {
        try container.newContext().fetch(FetchRequest<KindRecord>()).reduce(0) { $0 + $1.text.utf8.count }
    }

    /// Fetches every object and reads the enumeration: the sum of its raw values' lengths.
    public func readEnumerations() throws -> Int {
        try container.newContext().fetch(FetchRequest<KindRecord>()).reduce(0) { $0 + $1.state.rawValue.utf8.count }
    }

    /// Fetches every object and reads the Codable value: the sum of its cities' lengths.
    public func readCodables() throws -> Int {
        try container.newContext().fetch(FetchRequest<KindRecord>()).reduce(0) { $0 + $1.place.city.utf8.count }
    }
}
