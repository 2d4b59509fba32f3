import Synchronization

/// Maps the key paths of ``Attribute`` properties to attribute positions,
/// once per property, so reading a typed property costs a few comparisons.
///
/// A property wrapper learns which property it serves only from the key path
/// of its storage (`\News._title`). The first access resolves the path's name
/// ("title") to the attribute's position and remembers the key path object
/// itself in a slot; later accesses compare object identities against the
/// slots without locking. Key paths from literals are created once per
/// program, so the slots fill once; any other key path falls back to a
/// locked table. Every key path kept is retained, so an identity is never
/// reused by another key path.
///
/// In front of the slots sits a small table indexed by a hash of the
/// identity, each entry one atomic word holding the identity and the
/// position together: a read is one load and one comparison, however many
/// attributes the entity has. Two key paths whose hashes meet keep one
/// entry between them; the other is found in the slots.
final class AttributeKeyPaths: @unchecked Sendable {
    // @unchecked: `identities` is only read and written through atomic
    // operations; it is allocated in init and freed in deinit.

    /// One slot per attribute: the identity of the key path resolved to it,
    /// or 0. In raw memory rather than an array of objects, so reading a slot
    /// costs no reference counting.
    private let identities: UnsafeMutablePointer<Atomic<UInt>>
    private let count: Int
    /// The hashed table: identity | position << 48 in each entry, or 0.
    private let entries: UnsafeMutablePointer<Atomic<UInt>>
    /// The table's size less one (a power of two less one).
    private let entryMask: Int
    private let others = Mutex<[ObjectIdentifier: Resolved]>([:])

    /// A resolved key path, kept alive. `@unchecked Sendable`: key path objects
    /// are immutable, and this one is only compared and retained.
    private struct Resolved: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let number: Int
    }

    /// What the positions are of.
    enum Kind {
        case attributes, relationships, composites
    }

    private let kind: Kind

    init(count: Int, kind: Kind = .attributes) {
        self.count = count
        self.kind = kind
        identities = .allocate(capacity: max(count, 1))
        for number in 0..<max(count, 1) { (identities + number).initialize(to: Atomic(0)) }
        var size = 8
        while size < count * 4 { size *= 2 }
        entries = .allocate(capacity: size)
        for index in 0..<size { (entries + index).initialize(to: Atomic(0)) }
        entryMask = size - 1
    }

    deinit {
        identities.deinitialize(count: max(count, 1))
        identities.deallocate()
        entries.deinitialize(count: entryMask + 1)
        entries.deallocate()
    }

    /// Bits of an identity (a heap address) below the position's.
    private static let identityBits: UInt = (1 << 48) - 1

    @inline(__always)
    func number(for keyPath: AnyKeyPath, in entity: EntityDescription) -> Int {
        let identity = UInt(bitPattern: ObjectIdentifier(keyPath))
        let entry = entries[entryIndex(identity)].load(ordering: .relaxed)
        if entry & Self.identityBits == identity { return Int(entry >> 48) }
        for number in 0..<count where identities[number].load(ordering: .relaxed) == identity {
            return number
        }
        return resolve(keyPath, in: entity)
    }

    /// Where `identity` goes in the hashed table (addresses are 16-byte
    /// aligned: their low bits say nothing).
    @inline(__always)
    private func entryIndex(_ identity: UInt) -> Int {
        Int(truncatingIfNeeded: (identity >> 4) ^ (identity >> 12)) & entryMask
    }

    private func resolve(_ keyPath: AnyKeyPath, in entity: EntityDescription) -> Int {
        if let known = others.withLock({ $0[ObjectIdentifier(keyPath)]?.number }) { return known }
        let name = Self.attributeName(of: keyPath)
        let found = switch kind {
        case .attributes: entity.attributeNumber(named: name)
        case .relationships: entity.relationshipNumbers[name]
        case .composites: entity.composites.firstIndex { $0.name == name }
        }
        guard let number = found else {
            let what = switch kind {
            case .attributes: "an attribute"
            case .relationships: "a relationship"
            case .composites: "a composite attribute"
            }
            fatalError(
                "\(keyPath) is not \(what) of entity \(entity.name). "
                    + "Properties can't be read in init(entity:insertInto:); use awakeFromInsert().")
        }
        let resolved = Resolved(keyPath: keyPath, number: number)
        others.withLock { $0[ObjectIdentifier(keyPath)] = resolved }
        let identity = UInt(bitPattern: ObjectIdentifier(keyPath))
        _ = identities[number].compareExchange(expected: 0, desired: identity, ordering: .relaxed)
        // Into the hashed table when the identity and position fit one word
        // and the entry is free.
        if identity & ~Self.identityBits == 0 && number < 1 << 16 {
            _ = entries[entryIndex(identity)].compareExchange(
                expected: 0, desired: identity | UInt(number) << 48, ordering: .relaxed)
        }
        return number
    }

    /// `\News._title` → `title`.
    static func attributeName(of keyPath: AnyKeyPath) -> String {
        var name = Substring(keyPath.debugDescription)
        if let dot = name.lastIndex(of: ".") { name = name[name.index(after: dot)...] }
        if name.first == "_" { name = name.dropFirst() }
        return String(name)
    }
}
