// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import NIOCore
import PostgresNIO

/// The columns of a row read one after another, as the bytes PostgreSQL
/// sent (binary: every statement the engine sends asks for it). PostgresNIO's
/// typed `decode((A, B, C).self)` instantiates the tuple's generic metadata
/// at run time for each row, which cost far more per column than reading
/// the bytes as here.
struct RowColumns {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The first column of `row`, an integer; `nil` for NULL.
    static func integer(of row: PostgresRow) throws -> Int64? {
        var columns = RowColumns(row)
        return try columns.integer()
    }

    /// The first column of `row`, an integer that must not be NULL.
    static func requiredInteger(of row: PostgresRow) throws -> Int64 {
        var columns = RowColumns(row)
        return try columns.requiredInteger()
    }

    /// The first column of `row`, bytes that must not be NULL.
    static func requiredBytes(of row: PostgresRow) throws -> ByteBuffer {
        var columns = RowColumns(row)
        return try columns.requiredBytes()
    }

    /// The next column's bytes, `nil` for NULL.
    mutating func bytes() throws -> ByteBuffer? {
        guard let cell = cells.next() else { throw UnexpectedColumn() }
        return cell.bytes
    }

    /// The next column's bytes, which must not be NULL.
    mutating func requiredBytes() throws -> ByteBuffer {
        guard let bytes = try bytes() else { throw UnexpectedColumn() }
        return bytes
    }

    /// The next column, an `int8` or `int4` (in binary); `nil` for NULL.
    mutating func integer() throws -> Int64? {
        guard let cell = cells.next() else { throw UnexpectedColumn() }
        guard var bytes = cell.bytes else { return nil }
        // Binary whatever the cell says: PostgresNIO asks for every result
        // column in binary, but the row description of a query prepared
        // through its `PreparedQuery` still says text.
        switch (cell.dataType, bytes.readableBytes) {
        case (.int8, 8): return bytes.readInteger(as: Int64.self)
        case (.int4, 4): return bytes.readInteger(as: Int32.self).map(Int64.init)
        default: throw UnexpectedColumn()
        }
    }

    /// The next column, an `int8` or `int4` that must not be NULL.
    mutating func requiredInteger() throws -> Int64 {
        guard let value = try integer() else { throw UnexpectedColumn() }
        return value
    }

    /// A row had fewer columns than its statement selects, NULL where it
    /// can't be, or a number of another type: the server isn't running the
    /// statement the engine sent.
    struct UnexpectedColumn: Error, CustomStringConvertible {
        var description: String { "a row from PostgreSQL lacks a column the statement selects, or has one of another type" }
    }
}
#endif
