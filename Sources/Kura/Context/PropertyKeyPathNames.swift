import Synchronization

/// Finds the property a key path such as `\News.sortOrder` or `\News.author`
/// stands for, so predicates, sort descriptors and inverses can be written
/// with key paths.
///
/// A key path to an ``Attribute`` or ``Relationship`` property points at its
/// accessor, whose key path says nothing of the name. So, once per key path,
/// Kura reads it from a probe object: an object of the class, outside any
/// context, holding a placeholder for each attribute and noting which
/// property the accessor reads. The answer is cached; later uses cost a
/// dictionary lookup.
enum PropertyKeyPathNames {
    private struct Entry: @unchecked Sendable {
        // @unchecked: key paths are immutable; this one is kept so its
        // identity is never reused.
        let keyPath: AnyKeyPath
        let name: String
    }

    private static let names = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let entities = Mutex<[ObjectIdentifier: EntityDescription]>([:])

    /// The property name of `keyPath`. A key path that isn't a single
    /// ``Attribute`` or ``Relationship`` property is a programming error,
    /// and stops the program with a message.
    static func name<Root: ManagedObject, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        name(of: keyPath, root: Root.self)
    }

    /// The property name of `keyPath`, whose root is `root`.
    static func name(of keyPath: AnyKeyPath, root: ManagedObject.Type) -> String {
        if let known = names.withLock({ $0[ObjectIdentifier(keyPath)]?.name }) { return known }
        let entity = entity(of: root)
        let probe = root.init(entity: entity, insertInto: nil)
        probe.values = ContiguousArray(entity.attributes.map { Optional(Self.placeholder(for: $0.type)) })
        probe.isFullyDecoded = true
        probe.probedProperties = []
        _ = probe[keyPath: keyPath]
        guard let read = probe.probedProperties, read.count == 1 else {
            fatalError("\(keyPath) is not an @Attribute or @Relationship property of \(root)")
        }
        let name = read[0]
        let entry = Entry(keyPath: keyPath, name: name)
        names.withLock { $0[ObjectIdentifier(keyPath)] = entry }
        return name
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
