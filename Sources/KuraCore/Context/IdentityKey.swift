/// An object's identity as a dictionary or set key, hashed with one
/// multiplication instead of SipHash.
///
/// Saves, relationship changes and registrations look objects and entities
/// up by identity many times per object (a to-many's added members, the
/// context's registry of an entity, an inserted object's position in a
/// save); `ObjectIdentifier` hashes each lookup with SipHash, several times
/// the cost. Identities are addresses the allocator hands out, not
/// input an attacker picks, so the cheaper mix is safe.
struct IdentityKey: Hashable {
    let identifier: ObjectIdentifier

    init(_ object: AnyObject) { identifier = ObjectIdentifier(object) }

    init(_ identifier: ObjectIdentifier) { self.identifier = identifier }

    static func == (a: IdentityKey, b: IdentityKey) -> Bool { a.identifier == b.identifier }

    func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    #if !InternalChecks
    // The internal-checks build hashes with `hash(into:)` (SipHash): the
    // suites it runs then show that nothing depends on this hash or on the
    // order it gives a dictionary, only speed does. `_rawHashValue(seed:)`
    // is the standard library's underscored entry point; were it dropped,
    // `hash(into:)` would be used, correct and slower.
    func _rawHashValue(seed: Int) -> Int {
        multiplicativeHash(UInt64(UInt(bitPattern: Int(bitPattern: identifier))), seed: seed)
    }
    #endif
}

/// `value` mixed with a dictionary's `seed` by one multiplication, its high
/// half folded into the low one, where a hash table takes its bucket from
/// (so values that differ only in high bits, like multiples of 4096 or
/// 16-byte aligned addresses, still spread).
@inline(__always)
func multiplicativeHash(_ value: UInt64, seed: Int) -> Int {
    let mixed = (value ^ UInt64(truncatingIfNeeded: seed)) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
}
