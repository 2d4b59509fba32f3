import Foundation
import Kura

/// A flat entity: what a superentity's fetch is measured against.
final class FlatStory: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var rank: Int = 0
    @Attribute var extra: String = ""
}

/// An abstract superentity of two sub-entities with the same attributes
/// as ``FlatStory`` between them.
class FamilyStory: ManagedObject {
    override class var isAbstract: Bool { true }
    @Attribute var title: String = ""
    @Attribute var rank: Int = 0
}

final class TextStory: FamilyStory {
    @Attribute var extra: String = ""
}

final class PhotoStory: FamilyStory {
    @Attribute var caption: String = ""
}

/// Kura fetching a superentity of two sub-entities, and one flat entity of
/// the same size (issue 39: within 1.2 times).
public final class InheritanceEngine {
    let container: PersistentContainer

    public init(directory: String) throws {
        var options = StoreOptions()
        options.initialSize = 1 << 30
        let model = try ManagedObjectModel(FlatStory.self, FamilyStory.self, TextStory.self, PhotoStory.self)
        container = try PersistentContainer(path: directory + "/inheritance.kura", model: model, options: options)
    }

    deinit { container.close() }

    /// `count` flat objects, and `count` of the family (half of each sub-entity).
    public func fill(count: Int) throws {
        let context = container.newContext()
        for number in 0..<count {
            let flat = FlatStory(context: context)
            flat.title = "story \(number)"
            flat.rank = (number &* 7919) % count
            flat.extra = "extra"
            let member: FamilyStory
            if number % 2 == 0 {
                let text = TextStory(context: context)
                text.extra = "extra"
                member = text
            } else {
                let photo = PhotoStory(context: context)
                photo.caption = "extra"
                member = photo
            }
            member.title = "story \(number)"
            member.rank = (number &* 7919) % count
        }
        try context.save()
    }

    /// Fetches every flat object and reads its title.
    public func fetchFlat() throws -> Int {
        try container.newContext().fetch(FetchRequest<FlatStory>()).reduce(0) { $0 + $1.title.utf8.count }
    }

    /// Fetches every object of the superentity and reads its title.
    public func fetchFamily() throws -> Int {
        try container.newContext().fetch(FetchRequest<FamilyStory>()).reduce(0) { $0 + $1.title.utf8.count }
    }

    /// The 100 highest ranks of the flat entity (no index: a top-K).
    public func topFlat() throws -> Int {
        try container.newContext().fetch(FetchRequest<FlatStory>().sorted(by: \.rank, ascending: false).limited(to: 100))
            .reduce(0) { $0 + $1.rank }
    }

    /// The 100 highest ranks of the superentity.
    public func topFamily() throws -> Int {
        try container.newContext().fetch(FetchRequest<FamilyStory>().sorted(by: \.rank, ascending: false).limited(to: 100))
            .reduce(0) { $0 + $1.rank }
    }
}
