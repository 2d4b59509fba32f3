extension Array where Element == ManagedObject {
    /// Calls `body` with each object without retaining it.
    ///
    /// A save walks its objects several times. A `for` loop retains and
    /// releases each object it hands out, and those are atomic operations:
    /// on an object no cache holds any more (a save of 100,000 objects), each
    /// waits for the object's memory before the loop can go on, where plain
    /// reads of several objects overlap.
    ///
    /// The array keeps the objects alive, and the walk goes over this value,
    /// so `body` may change the list it was copied from (a hook that changes
    /// another object adds it to the context's pending list).
    @inline(__always)
    func forEachUnretained(_ body: (ManagedObject) throws -> Void) rethrows {
        try withUnsafeBufferPointer { objects in
            try objects.withMemoryRebound(to: Unmanaged<ManagedObject>.self) { references in
                for reference in references { try reference._withUnsafeGuaranteedRef(body) }
            }
        }
    }
}
