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

    /// The property name of `keyPath`, which must name one ``Attribute`` or
    /// ``Relationship`` property of `Root` (the inverse of a relationship);
    /// anything else is a programming error and stops the program with a message.
    static func name<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        name(of: keyPath, root: Root.self)
    }

    /// The property name of `keyPath`, whose root is `root`; see ``name(of:)``.
    static func name(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> String {
        let found = names(of: keyPath, root: root)
        guard found.count == 1 else {
            fatalError("\(keyPath) goes through relationships (\(found.joined(separator: "."))): name one property of \(root)")
        }
        return found[0]
    }

    /// The key path `keyPath` stands for, by name: a property of `Root`, or
    /// to-one relationships and a property at the end (`author.name`). A
    /// key path of anything else is a programming error and stops the
    /// program with a message.
    static func path<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        path(of: keyPath, root: Root.self)
    }

    /// The key path `keyPath`, whose root is `root`, stands for; see ``path(of:)``.
    static func path(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> String {
        names(of: keyPath, root: root).joined(separator: ".")
    }

    /// The names the accessors along `keyPath` read, from a probe of `root`.
    private static func names(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> [String] {
        if let known = names.withLock({ $0[ObjectIdentifier(keyPath)]?.names }) { return known }
        let probe = PropertyProbe()
        _ = probeObject(of: root, noting: probe)[keyPath: keyPath]
        guard !probe.names.isEmpty else {
            fatalError("\(keyPath) is not a key path of @Attribute and @Relationship properties of \(root)")
        }
        let entry = Entry(keyPath: keyPath, names: probe.names)
        names.withLock { $0[ObjectIdentifier(keyPath)] = entry }
        return probe.names
    }

    /// An object of `type` outside any context, each attribute holding a
    /// placeholder, whose typed accessors note the names they read in `probe`.
    static func probeObject(of type: ManagedObject.Type, noting probe: PropertyProbe) -> ManagedObject {
        let entity = entity(of: type)
        let object = type.init(entity: entity, insertInto: nil)
        object.values = ContiguousArray(entity.attributes.map { Optional(Self.placeholder(for: $0.type)) })
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

    private static func placeholder(for type: AttributeType) -> AttributeValue {
        switch type {
        case .bool: .bool(false)
        case .int16, .int32, .int64: .int(0)
        case .double: .double(0)
        case .float: .float(0)
        case .decimal: .decimal(0)
        case .string: .string("")
        case .date: .date(.init(timeIntervalSinceReferenceDate: 0))
        case .uuid: .uuid(.init(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .data: .data(.init())
        case .url: .url(.init(string: "about:blank")!)
        }
    }
}

/// Where probe objects note the properties their accessors read (see
/// ``PropertyKeyPathNames``): one for a whole key path, shared by the probes
/// of the objects it goes through.
final class PropertyProbe {
    var names: [String] = []
}
