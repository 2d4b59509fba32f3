/// The identity of one object: its entity and its primary key.
///
/// A newly inserted object has a temporary ID until its first save gives it
/// a permanent one (``ManagedObject/objectID`` changes then). A permanent ID
/// names the same stored object in every context and process, has a stable
/// string form (`kura://News/42`), and is `Sendable`, so it is what you pass
/// between contexts and tasks:
///
/// ```swift
/// let id = news.objectID                                         // after save
/// try await container.performBackgroundTask { context in
///     let same = try context.existingObject(with: id, as: News.self)
/// }
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The object's entity.
    public let entity: EntityDescription
    /// The primary key, or for a temporary ID the context's sequence number.
    let number: UInt64
    /// True until the object's first save.
    public let isTemporaryID: Bool

    /// For an entity with sub-entities, `entity` may be the superentity a
    /// relationship points to: the key's tag names the entity (see
    /// ``EntityFamily``), which the ID gets.
    @inline(__always)
    init(entity: EntityDescription, number: UInt64, isTemporaryID: Bool) {
        self.entity = entity.concreteEntity(forKey: number)
        // A number without `entity`'s tag would name an entity above it (a
        // family's root): temporary numbers go through init(temporary:of:).
        assert(!isTemporaryID || self.entity.isKind(of: entity), "\(entity.name)'s temporary number \(number) has no tag")
        self.number = number
        self.isTemporaryID = isTemporaryID
    }

    /// A temporary ID of `entity` from a context's (or a batch's) sequence
    /// number, which carries no tag: the entity's tag is added, as a key of
    /// the entity carries it, so the ID names `entity` (and not its family's
    /// root) and a save files the object under `entity`'s own counter.
    @inline(__always)
    init(temporary sequenceNumber: UInt64, of entity: EntityDescription) {
        self.init(entity: entity, number: sequenceNumber | entity.layout.keyTag, isTemporaryID: true)
    }

    /// Set in the key a child context files an object its parent inserted
    /// under (beside stored objects' primary keys, which never reach it).
    static let temporaryKeyFlag: UInt64 = 1 << 63

    /// The ID of the object a context files under `key`: a primary key, or a
    /// temporary number with ``temporaryKeyFlag``.
    init(entity: EntityDescription, registryKey key: UInt64) {
        self.init(entity: entity, number: key & ~Self.temporaryKeyFlag, isTemporaryID: key & Self.temporaryKeyFlag != 0)
    }

    /// The key a context files the object under among saved ones (see ``init(entity:registryKey:)``).
    var registryKey: UInt64 {
        isTemporaryID ? number | Self.temporaryKeyFlag : number
    }

    /// The primary key the store knows the object by, or `nil` for a
    /// temporary ID. Keys start at 1 and are never reused.
    public var primaryKey: UInt64? {
        isTemporaryID ? nil : number
    }

    /// The ID as a URI: `kura://News/42`, or `kura://News/t3` while temporary.
    /// ``ManagedObjectModel/objectID(forURIRepresentation:)`` reads it back.
    ///
    /// The key is shown without the tag that a sub-entity's keys carry
    /// (see the StoreFormat article): `kura://Video/7`.
    public var uriRepresentation: String {
        "kura://\(entity.name)/\(isTemporaryID ? "t" : "")\(entity.family == nil ? number : number & ~EntityFamily.keyTagMask)"
    }

    public var description: String { uriRepresentation }
}

extension ManagedObjectModel {
    /// Reads the string form of a permanent ID (`kura://News/42`).
    ///
    /// - Throws: ``KuraError/invalidObjectID(_:)`` for text that is not such a
    ///   URI, names an entity not in this model, or is a temporary ID.
    public func objectID(forURIRepresentation uri: String) throws -> ObjectID {
        // Read as bytes (imports resolve hundreds of thousands of these), then
        // judged: the entity named, the key, or what is wrong.
        var text = uri
        // `name` is nil when the text is not of the form kura://Entity/key.
        let parsed: (name: String?, key: UInt64?, isTemporary: Bool)? = text.withUTF8 { bytes in
            let prefix = "kura://".utf8
            guard bytes.starts(with: prefix) else { return nil }
            let rest = bytes[prefix.count...]
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")), !rest[(slash + 1)...].contains(UInt8(ascii: "/")) else {
                return (nil, nil, false)
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[prefix.count..<slash]), as: UTF8.self)
            let digits = bytes[(slash + 1)...]
            if digits.first == UInt8(ascii: "t") { return (name, nil, true) }
            var key: UInt64 = 0
            for digit in digits {
                guard digit &- UInt8(ascii: "0") < 10 else { return (name, nil, false) }
                let (times10, overflow) = key.multipliedReportingOverflow(by: 10)
                let (next, carry) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
                guard !overflow, !carry else { return (name, nil, false) }
                key = next
            }
            return (name, digits.isEmpty ? nil : key, false)
        }
        guard let parsed else {
            throw KuraError.invalidObjectID("'\(uri)' does not start with kura://")
        }
        guard let name = parsed.name else {
            throw KuraError.invalidObjectID("'\(uri)' is not of the form kura://Entity/key")
        }
        guard let entity = entity(named: name) else {
            throw KuraError.invalidObjectID("'\(uri)' names entity \(name), which is not in the model")
        }
        if parsed.isTemporary {
            throw KuraError.invalidObjectID("'\(uri)' is a temporary ID, which only its own context knows")
        }
        guard let number = parsed.key, number > 0 else {
            throw KuraError.invalidObjectID("'\(uri)' has no valid primary key")
        }
        guard entity.family != nil else { return ObjectID(entity: entity, number: number, isTemporaryID: false) }
        // A URI leaves out the tag a family's keys carry (see EntityFamily).
        guard number & ~EntityFamily.keyTagMask > 0, number & ObjectID.temporaryKeyFlag == 0,
              number & EntityFamily.keyTagMask == 0 || number & EntityFamily.keyTagMask == entity.layout.keyTag else {
            throw KuraError.invalidObjectID("'\(uri)' has no valid primary key of \(entity.name)")
        }
        return ObjectID(entity: entity, number: number | entity.layout.keyTag, isTemporaryID: false)
    }
}
