import Foundation

/// A place in a store's history: the transactions after it are the ones a
/// reader hasn't seen. Keep the last one you merged (it is `Codable`).
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The transaction's sequence number: 1 for the first save recorded, one
    /// more for each next one.
    public let sequence: UInt64

    public init(sequence: UInt64) {
        self.sequence = sequence
    }

    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool { lhs.sequence < rhs.sequence }

    public var description: String { "#\(sequence)" }
}

/// One save as the store's history recorded it (Core Data's persistent
/// history transaction), written in the save's own transaction.
public struct HistoryTransaction: Sendable, Hashable {
    public let token: HistoryToken
    public let date: Date
    /// The ``ManagedObjectContext/transactionAuthor`` of the context that saved.
    public let author: String?
    /// The process that saved.
    public let processIdentifier: Int32
    /// What the save inserted, updated and deleted, as a context
    /// notification carries it; ``ManagedObjectContext/mergeChanges(_:)``
    /// merges it. Objects of entities the store's model no longer has are
    /// left out.
    public let changes: ContextChanges
    /// For each updated object, the names of the attributes and
    /// relationships the save changed.
    public let changedKeys: [ObjectID: Set<String>]
}

/// The bytes of one history transaction: little-endian, strings as a UInt16
/// length and UTF-8, objects as an entity number (into the transaction's
/// entity table) and a primary key.
///
/// ```
/// u8 version (1) · f64 date · i32 pid · str author ("" for none)
/// u16 n, n × str entity · u16 m, m × str key
/// u32 inserted, each: u16 entity, u64 key
/// u32 updated, each: u16 entity, u64 key, u16 k, k × u16 key
/// u32 deleted, each: u16 entity, u64 key
/// ```
struct HistoryRecord {
    struct Object {
        var entity: String
        var primaryKey: UInt64
    }

    var date: Date
    var processIdentifier: Int32
    var author: String?
    var inserted: [Object] = []
    var updated: [(Object, [String])] = []
    var deleted: [Object] = []

    func encoded() -> [UInt8] {
        var entities: [String: UInt16] = [:]
        var entityNames: [String] = []
        var keys: [String: UInt16] = [:]
        var keyNames: [String] = []
        func number(_ name: String, in table: inout [String: UInt16], _ names: inout [String]) -> UInt16 {
            if let found = table[name] { return found }
            let next = UInt16(names.count)
            table[name] = next
            names.append(name)
            return next
        }
        var body: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func append(_ object: Object) {
            append(number(object.entity, in: &entities, &entityNames), to: &body)
            append(object.primaryKey, to: &body)
        }
        append(UInt32(inserted.count), to: &body)
        for object in inserted { append(object) }
        append(UInt32(updated.count), to: &body)
        for (object, changed) in updated {
            append(object)
            append(UInt16(changed.count), to: &body)
            for key in changed { append(number(key, in: &keys, &keyNames), to: &body) }
        }
        append(UInt32(deleted.count), to: &body)
        for object in deleted { append(object) }

        var bytes: [UInt8] = [1]
        append(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        append(processIdentifier, to: &bytes)
        func appendString(_ text: String) {
            let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
            append(UInt16(utf8.count), to: &bytes)
            bytes += utf8
        }
        appendString(author ?? "")
        append(UInt16(entityNames.count), to: &bytes)
        entityNames.forEach(appendString)
        append(UInt16(keyNames.count), to: &bytes)
        keyNames.forEach(appendString)
        return bytes + body
    }

    /// Decodes `bytes`, or `nil` when they are not a history record.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        var offset = 0
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard offset + MemoryLayout<T>.size <= bytes.count else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        func string() -> String? {
            guard let length = read(UInt16.self), offset + Int(length) <= bytes.count else { return nil }
            defer { offset += Int(length) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))]), as: UTF8.self)
        }
        func strings() -> [String]? {
            guard let count = read(UInt16.self) else { return nil }
            var names: [String] = []
            for _ in 0..<count {
                guard let name = string() else { return nil }
                names.append(name)
            }
            return names
        }
        guard read(UInt8.self) == 1, let date = read(UInt64.self), let pid = read(Int32.self), let author = string(),
              let entities = strings(), let keys = strings() else { return nil }
        func object() -> Object? {
            guard let entity = read(UInt16.self), Int(entity) < entities.count, let key = read(UInt64.self) else { return nil }
            return Object(entity: entities[Int(entity)], primaryKey: key)
        }
        func objects() -> [Object]? {
            guard let count = read(UInt32.self), Int(count) <= bytes.count / 10 else { return nil }
            var list: [Object] = []
            for _ in 0..<count {
                guard let next = object() else { return nil }
                list.append(next)
            }
            return list
        }
        guard let inserted = objects(), let updatedCount = read(UInt32.self), Int(updatedCount) <= bytes.count / 12 else { return nil }
        var updated: [(Object, [String])] = []
        for _ in 0..<updatedCount {
            guard let changedObject = object(), let count = read(UInt16.self) else { return nil }
            var changed: [String] = []
            for _ in 0..<count {
                guard let key = read(UInt16.self), Int(key) < keys.count else { return nil }
                changed.append(keys[Int(key)])
            }
            updated.append((changedObject, changed))
        }
        guard let deleted = objects(), offset == bytes.count else { return nil }
        self.date = Date(timeIntervalSinceReferenceDate: Double(bitPattern: date))
        self.processIdentifier = pid
        self.author = author.isEmpty ? nil : author
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    init(date: Date, processIdentifier: Int32, author: String?) {
        self.date = date
        self.processIdentifier = processIdentifier
        self.author = author
    }
}
