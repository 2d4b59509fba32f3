import Foundation
import Synchronization

/// Finds the property a key path such as `\News.sortOrder` or `\News.author`
/// stands for, or the key path through to-one relationships one such as
/// `\Article.author?.name` stands for (`author.name`), so predicates, sort
/// descriptors and inverses can be written with key paths.
///
/// A key path to an ``Attribute`` or ``Relationship`` property points at its
/// accessor, whose key path says nothing of the name. So, once per key path,
/// Kura reads it from a probe object: an object of the class, outside any
/// context, holding a placeholder for each attribute and noting which
/// properties its accessors read; a to-one of a probe gives a probe of its
/// destination, which goes on noting. The answer is cached; later uses cost
/// a dictionary lookup.
enum PropertyKeyPathNames {
    private struct Entry: @unchecked Sendable {
        // @unchecked: key paths are immutable; this one is kept so its
        // identity is never reused.
        let keyPath: AnyKeyPath
        let names: [String]
    }

    private static let names = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let entities = Mutex<[ObjectIdentifier: EntityDescription]>([:])

    /// The key path `keyPath` stands for, by name: a property of `Root`, or
    /// to-one relationships and a property at the end (`author.name`).
    ///
    /// A key path that isn't of stored properties (a computed property)
    /// gives a name no property has, saying so: the request, predicate or
    /// model it goes into throws ``KuraError/unknownAttribute(entity:key:)``
    /// naming it where it is used (these key paths are taken where nothing
    /// can throw: operators, initializers of descriptors).
    static func path<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        path(of: keyPath, root: Root.self)
    }

    /// The key path `keyPath`, whose root is `root`, stands for; see ``path(of:)``.
    static func path(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> String {
        // (No dot in the name: it would read as a key path.)
        propertyNames(of: keyPath, root: root)?.joined(separator: ".")
            ?? "(\(type(of: keyPath)) of a computed property: not a stored property)"
    }

    /// The names the accessors along `keyPath` read, from a probe of
    /// `root`, or `nil` when `keyPath` isn't one of stored properties: it
    /// reads none, or gives something else than the last property it reads
    /// (a computed property such as `title.uppercased()`). The key path is
    /// read twice, from probes holding two sets of placeholders, so a
    /// computed property that transforms a value is told from the property.
    static func propertyNames(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> [String]? {
        if let known = names.withLock({ $0[ObjectIdentifier(keyPath)]?.names }) { return known }
        var found: [String]?
        var fieldPaths: Set<String>?
        for variant in 0..<PropertyProbe.variants {
            let probe = PropertyProbe(variant: variant)
            let result = probeObject(of: root, noting: probe)[keyPath: keyPath] as Any
            // A to-one's probe notes into `probe`, which holds it as what was
            // given: let go of it once read, or the two keep each other.
            defer { probe.given = nil }
            guard probe.gave(result), !probe.names.isEmpty, found == nil || found == probe.names else { return nil }
            found = probe.names
            if let paths = probe.fieldPaths { fieldPaths = fieldPaths.map { $0.intersection(paths) } ?? paths }
        }
        guard var found else { return nil }
        if let fieldPaths {
            // A composite's field: the one every variant gave.
            guard fieldPaths.count == 1 else { return nil }
            found.append(fieldPaths.first!)
        }
        let entry = Entry(keyPath: keyPath, names: found)
        names.withLock { $0[ObjectIdentifier(keyPath)] = entry }
        return found
    }

    /// An object of `type` outside any context, each attribute holding a
    /// placeholder, whose typed accessors note the names they read in `probe`.
    static func probeObject(of type: ManagedObject.Type, noting probe: PropertyProbe) -> ManagedObject {
        let entity = entity(of: type)
        let object = type.init(entity: entity, insertInto: nil)
        var values = ContiguousArray(entity.attributes.map { Optional(Self.placeholder(for: $0.type, variant: probe.variant)) })
        for composite in entity.composites {
            // (Each field its own value, so the one a key path gives is known.)
            let placeholders = CompositeProbe.placeholders(for: composite.attributeNumbers.map { entity.attributes[$0].type }, variant: probe.variant)
            for (number, placeholder) in zip(composite.attributeNumbers, placeholders) { values[number] = placeholder }
        }
        object.values = values
        object.isFullyDecoded = true
        object.propertyProbe = probe
        return object
    }

    private static func entity(of type: ManagedObject.Type) -> EntityDescription {
        if let known = entities.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        do {
            let entity = try EntityDescription(type)
            entities.withLock { $0[ObjectIdentifier(type)] = entity }
            return entity
        } catch {
            fatalError("\(type) is not a valid entity: \(error)")
        }
    }

    /// The value a probe holds for an attribute of `type`: two sets, the
    /// second unlike what a transformation of the first would give.
    static func placeholder(for type: AttributeType, variant: Int) -> AttributeValue {
        let second = variant != 0
        return switch type {
        case .bool: .bool(second)
        case .int16, .int32, .int64: .int(second ? 7919 : 0)
        case .double: .double(second ? 0.3125 : 0)
        case .float: .float(second ? 0.3125 : 0)
        case .decimal: .decimal(second ? 7.5 : 0)
        case .string: .string(second ? "Kura probe ½" : "")
        case .date: .date(.init(timeIntervalSinceReferenceDate: second ? 1_000 : 0))
        case .uuid: .uuid(.init(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, second ? 1 : 0)))
        case .data: .data(second ? Data([1, 2, 3]) : Data())
        case .url: .url(URL(string: second ? "https://probe.invalid/p" : "about:blank")!)
        }
    }
}

/// Where probe objects note the properties their accessors read (see
/// ``PropertyKeyPathNames``): one for a whole key path, shared by the probes
/// of the objects it goes through.
final class PropertyProbe {
    /// Which set of placeholders the probe objects hold.
    let variant: Int
    /// How many sets there are: two tell a property from a computation on
    /// it; the third tells up to eight `Bool` fields of a composite apart.
    static let variants = 3
    /// The names of the properties read, in order.
    var names: [String] = []
    /// What the last property read gave.
    var given: Given?
    /// For a key path into a composite value: the fields whose values
    /// it gave (several may hold this variant's value).
    var fieldPaths: Set<String>?

    /// What a probe's property gives.
    enum Given {
        /// An attribute's placeholder.
        case attribute(AttributeValue?)
        /// A to-one's destination, a probe object.
        case toOne(ManagedObject)
        /// A to-many's one member, a probe object.
        case toMany(ManagedObject)
        /// A composite value of this type, with these fields.
        case composite([CompositeField], Any.Type)
    }

    init(variant: Int) {
        self.variant = variant
    }

    /// Whether `result`, what a key path gave, is what its last property
    /// read gave: a key path of stored properties, not a computation on them.
    /// A field of a composite value is found from what it gave, and its
    /// path noted.
    func gave(_ result: Any) -> Bool {
        let value = AnyOptional.unwrapped(result)
        switch given {
        case .composite(let fields, let type):
            if let value, Swift.type(of: value) == type { return true }
            let paths = CompositeProbe.paths(giving: value, among: fields)
            fieldPaths = paths
            return !paths.isEmpty
        case .attribute(let placeholder):
            return (value as? any AttributeValueConvertible)?.attributeValue == placeholder
        case .toOne(let destination):
            return (value as? ManagedObject) === destination
        case .toMany(let member):
            guard let members = value as? any RelationshipValue, type(of: members).isToMany else { return false }
            let objects = members.relationshipObjects
            return objects.count == 1 && objects[0] === member
        case nil:
            return false
        }
    }
}
