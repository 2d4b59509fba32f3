// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array in the binary form of the protocol,
/// written element by element into one buffer: a batch of thousands of
/// keys binds without a value per element.
struct BinaryArray: PostgresDynamicTypeEncodable {
    let psqlType: PostgresDataType
    var psqlFormat: PostgresFormat { .binary }
    private let elementType: PostgresDataType
    private(set) var count = 0
    private var elements = ByteBuffer()

    private init(of elementType: PostgresDataType, arrayType: PostgresDataType) {
        self.elementType = elementType
        psqlType = arrayType
    }

    /// An empty `int4[]`.
    static func int4() -> BinaryArray { BinaryArray(of: .int4, arrayType: .int4Array) }

    /// An empty `bytea[]`.
    static func bytea() -> BinaryArray { BinaryArray(of: .bytea, arrayType: .byteaArray) }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ value: Int32) {
        elements.writeInteger(Int32(4))
        elements.writeInteger(value)
        count += 1
    }

    mutating func append(_ bytes: [UInt8]) {
        elements.writeInteger(Int32(bytes.count))
        elements.writeBytes(bytes)
        count += 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        elements.writeInteger(Int32(bytes.count))
        elements.writeBytes(bytes)
        count += 1
    }

    mutating func append(_ bytes: ByteBuffer) {
        elements.writeInteger(Int32(bytes.readableBytes))
        elements.writeImmutableBuffer(bytes)
        count += 1
    }

    /// Appends the elements of `other`, an array of the same type.
    mutating func append(contentsOf other: BinaryArray) {
        elements.writeImmutableBuffer(other.elements)
        count += other.count
    }

    /// The arrays as values of PostgresNIO's prepared queries, encoded into
    /// one buffer that each value is a slice of (a buffer of its own would cost
    /// each array an allocation).
    static func postgresData(_ arrays: [BinaryArray]) -> [PostgresData] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(arrays.reduce(0) { $0 + 20 + $1.elements.readableBytes })
        var ends: [Int] = []
        ends.reserveCapacity(arrays.count)
        for array in arrays {
            array.encode(into: &buffer, context: .default)
            ends.append(buffer.writerIndex)
        }
        // Sliced once everything is written: a slice taken earlier would
        // make the next write copy the buffer.
        var start = buffer.readerIndex
        return zip(arrays, ends).map { array, end in
            defer { start = end }
            return PostgresData(type: array.psqlType, formatCode: .binary, value: buffer.getSlice(at: start, length: end - start))
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions, a flag for nulls (none), the element type, then each
        // dimension's length and lower bound, then the elements. The header
        // is stored in one write: five `writeInteger`s, each checking the
        // buffer's capacity and uniqueness, cost a save's sixteen arrays
        // more than the rest of their encoding.
        let (count, elementType) = (Int32(count), elementType.rawValue)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { bytes in
            bytes.storeBytes(of: Int32(count == 0 ? 0 : 1).bigEndian, toByteOffset: 0, as: Int32.self)
            bytes.storeBytes(of: Int32(0), toByteOffset: 4, as: Int32.self)
            bytes.storeBytes(of: elementType.bigEndian, toByteOffset: 8, as: UInt32.self)
            guard count > 0 else { return 12 }
            bytes.storeBytes(of: count.bigEndian, toByteOffset: 12, as: Int32.self)
            bytes.storeBytes(of: Int32(1).bigEndian, toByteOffset: 16, as: Int32.self)
            return 20
        }
        if count > 0 { buffer.writeImmutableBuffer(elements) }
    }
}

/// Keys and values of one space or more, as the arrays a batch statement
/// unnests (`$1::int4[]` spaces, `$2::bytea[]` keys, `$3::bytea[]` values).
struct KeyBatch {
    var spaces = BinaryArray.int4()
    var keys = BinaryArray.bytea()
    var values = BinaryArray.bytea()

    var isEmpty: Bool { spaces.isEmpty }
    var count: Int { spaces.count }

    mutating func append(space: UInt32, key: [UInt8], value: ByteBuffer? = nil) {
        spaces.append(Int32(bitPattern: space))
        keys.append(key)
        if let value { values.append(value) }
    }

    mutating func append(space: UInt32, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        spaces.append(Int32(bitPattern: space))
        keys.append(key)
        values.append(value)
    }

    mutating func append(contentsOf other: KeyBatch) {
        spaces.append(contentsOf: other.spaces)
        keys.append(contentsOf: other.keys)
        values.append(contentsOf: other.values)
    }

    /// Spaces and keys as `$1`, `$2`.
    var keyBindings: PostgresBindings {
        var binds = PostgresBindings()
        binds.append(spaces)
        binds.append(keys)
        return binds
    }

    /// Spaces, keys and values as `$1`, `$2`, `$3`.
    var entryBindings: PostgresBindings {
        var binds = keyBindings
        binds.append(values)
        return binds
    }
}

/// Keys and values in batches of at most ``size`` each: one statement per
/// batch. (One statement of 300k rows took the server 3 µs a row more than
/// statements of 10k: measured, an insert of 100k objects.)
struct KeyBatches {
    static let size = 10_000
    private(set) var batches: [KeyBatch] = []
    private(set) var count = 0
    /// How many keys each space has in the batches.
    private(set) var countsBySpace: [UInt32: Int] = [:]

    var isEmpty: Bool { count == 0 }

    /// Every key in one batch (of any size).
    var all: KeyBatch {
        guard var all = batches.first else { return KeyBatch() }
        for batch in batches.dropFirst() { all.append(contentsOf: batch) }
        return all
    }

    mutating func append(space: UInt32, key: [UInt8], value: ByteBuffer? = nil) {
        appendToLastBatch(space: space) { $0.append(space: space, key: key, value: value) }
    }

    mutating func append(space: UInt32, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        appendToLastBatch(space: space) { $0.append(space: space, key: key, value: value) }
    }

    /// Appends one key of `space` with `append`, to the last batch or, when
    /// that one is full, to a new one.
    private mutating func appendToLastBatch(space: UInt32, _ append: (inout KeyBatch) -> Void) {
        if batches.last.map({ $0.count >= Self.size }) ?? true { batches.append(KeyBatch()) }
        append(&batches[batches.count - 1])
        count += 1
        countsBySpace[space, default: 0] += 1
    }

    /// Appends the batches of `other` as they are (each holds at most ``size`` keys).
    mutating func append(contentsOf other: KeyBatches) {
        batches += other.batches
        count += other.count
        countsBySpace.merge(other.countsBySpace, uniquingKeysWith: +)
    }
}
#endif
