/// A transaction of an ``InMemoryEngine``: a read's snapshot, or a write's
/// own copy of the state, published when the write commits.
final class InMemoryTransaction: StorageTransaction {
    fileprivate(set) var state: InMemoryEngine.State
    let isReadOnly: Bool
    private let commitID: Int?

    init(state: InMemoryEngine.State, isReadOnly: Bool, id: Int?) {
        self.state = state
        self.isReadOnly = isReadOnly
        self.commitID = id
    }

    var id: Int { commitID ?? state.commit }

    func openSpace(named name: String) throws -> StorageSpace? {
        state.names[name].map(StorageSpace.init(number:))
    }

    func createSpace(named name: String) throws -> StorageSpace {
        if let number = state.names[name] { return StorageSpace(number: number) }
        try checkWritable()
        let number = state.nextSpace
        state.nextSpace += 1
        state.names[name] = number
        state.spaces[number] = InMemoryEngine.Space()
        return StorageSpace(number: number)
    }

    func visitValue(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        let stored = try self.space(space)
        let (index, found) = stored.position(of: key)
        guard found else { return false }
        try stored.values[index].withUnsafeBytes(body)
        return true
    }

    func count(in space: StorageSpace) throws -> Int {
        try self.space(space).keys.count
    }

    func isEmpty() throws -> Bool {
        state.names.isEmpty
    }

    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection,
        _ body: (StorageEntry) throws -> Bool
    ) throws {
        // A copy shares the arrays: the walk sees the space as it was when it began.
        let stored = try self.space(space)
        var lower = 0
        if let bound = range.lower {
            let (index, found) = bound.key.withUnsafeBytes { stored.position(of: $0) }
            lower = found && !bound.isInclusive ? index + 1 : index
        }
        var upper = stored.keys.count
        if let bound = range.upper {
            let (index, found) = bound.key.withUnsafeBytes { stored.position(of: $0) }
            upper = found && bound.isInclusive ? index + 1 : index
        }
        guard lower < upper else { return }
        func visit(_ index: Int) throws -> Bool {
            try stored.keys[index].withUnsafeBytes { key in
                try stored.values[index].withUnsafeBytes { value in try body(StorageEntry(key: key, value: value)) }
            }
        }
        switch direction {
        case .forward:
            for index in lower..<upper where try !visit(index) { return }
        case .reverse:
            for index in (lower..<upper).reversed() where try !visit(index) { return }
        }
    }

    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws {
        _ = try self.space(space)
        try body(KeyedCursor(transaction: self, space: space))
    }

    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws {
        try checkWritable()
        let (index, found) = try self.space(space).position(of: key)
        if found && flags.contains(.noOverwrite) { throw StorageEngineError.keyExists }
        if flags.contains(.append) && index < (state.spaces[space.number]?.keys.count ?? 0) { throw StorageEngineError.keyExists }
        if found {
            state.spaces[space.number]!.values[index] = Array(value)
        } else {
            state.spaces[space.number]!.keys.insert(Array(key), at: index)
            state.spaces[space.number]!.values.insert(Array(value), at: index)
        }
    }

    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws {
        try checkWritable()
        let (index, found) = try self.space(space).position(of: key)
        guard found else { return }
        state.spaces[space.number]!.keys.remove(at: index)
        state.spaces[space.number]!.values.remove(at: index)
    }

    func removeAll(in space: StorageSpace) throws {
        try checkWritable()
        _ = try self.space(space)
        state.spaces[space.number] = InMemoryEngine.Space()
    }

    func drop(_ space: StorageSpace) throws {
        try checkWritable()
        _ = try self.space(space)
        state.spaces[space.number] = nil
        state.names = state.names.filter { $0.value != space.number }
    }

    func performNested(_ body: (any StorageTransaction) throws -> Void) throws {
        try checkWritable()
        let child = InMemoryTransaction(state: state, isReadOnly: false, id: commitID)
        try body(child)
        state = child.state
    }

    private func space(_ space: StorageSpace) throws -> InMemoryEngine.Space {
        guard let stored = state.spaces[space.number] else {
            throw KuraError.storage(path: "memory", failure: .engine(code: 0, message: "no space number \(space.number)"))
        }
        return stored
    }

    private func checkWritable() throws {
        if isReadOnly { throw KuraError.storage(path: "memory", failure: .engine(code: 0, message: "a write in a read transaction")) }
    }
}
