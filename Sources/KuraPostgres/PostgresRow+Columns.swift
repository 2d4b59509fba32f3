import NIOCore
import PostgresNIO

/// The columns of a row read one after another, as the bytes PostgreSQL
/// sent (binary: every statement the engine sends asks for it). PostgresNIO's
/// typed `decode((A, B, C).self)` instantiates the tuple's generic metadata
/// at run time for each row: about 1,600 instructions a column (callgrind,
/// a fetch of ten index entries joined with their records), against a few
/// dozen here.
struct RowColumns {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column's bytes, `nil` for NULL.
    mutating func bytes() throws -> ByteBuffer? {
        guard let cell = cells.next() else { throw MissingColumn() }
        return cell.bytes
    }

    /// The next column's bytes, which must not be NULL.
    mutating func requiredBytes() throws -> ByteBuffer {
        guard let bytes = try bytes() else { throw MissingColumn() }
        return bytes
    }

    /// The next column, an `int8` or `int4`; `nil` for NULL.
    mutating func integer() throws -> Int64? {
        guard let cell = cells.next() else { throw MissingColumn() }
        guard var bytes = cell.bytes else { return nil }
        switch (cell.format, cell.dataType, bytes.readableBytes) {
        case (.binary, .int8, 8): return bytes.readInteger(as: Int64.self)
        case (.binary, .int4, 4): return bytes.readInteger(as: Int32.self).map(Int64.init)
        default: return try cell.decode(Int64.self)
        }
    }

    /// The next column, an `int8` or `int4` that must not be NULL.
    mutating func requiredInteger() throws -> Int64 {
        guard let value = try integer() else { throw MissingColumn() }
        return value
    }

    /// A row had fewer columns than its statement selects, or NULL where
    /// it can't be: the server isn't running the statement the engine sent.
    struct MissingColumn: Error, CustomStringConvertible {
        var description: String { "a row from PostgreSQL lacks a column the statement selects" }
    }
}
